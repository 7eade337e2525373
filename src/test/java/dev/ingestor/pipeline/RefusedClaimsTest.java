package dev.ingestor.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A database that refuses the stages' claims at once (a database made read-only before a migration, a pool left on a
 * standby after a failover, a privilege revoked) must not make the stage workers poll again at once, round after round:
 * a failed claim waits for the next poll like an empty one. On the real PostgreSQL: a statement trigger refuses every
 * update of {@code import_job}, as a read-only database does, and counts the tries in a sequence, which no rollback
 * takes back.
 */
class RefusedClaimsTest extends IngestorTestSupport {

    @AfterEach
    void acceptClaimsAgain() {
        jdbc.execute("DROP TRIGGER IF EXISTS refuse_claims ON import_job");
        jdbc.execute("DROP FUNCTION IF EXISTS refuse_claims()");
        jdbc.execute("DROP SEQUENCE IF EXISTS refused_claims");
    }

    @Test
    void aClaimTheDatabaseRefusesWaitsForTheNextPoll() throws Exception {
        jdbc.execute("CREATE SEQUENCE refused_claims");
        jdbc.execute("""
                CREATE FUNCTION refuse_claims() RETURNS trigger AS $$
                BEGIN
                  PERFORM nextval('refused_claims');
                  RAISE EXCEPTION 'cannot execute UPDATE in a read-only transaction (injected)' USING ERRCODE = '25006';
                END $$ LANGUAGE plpgsql""");
        jdbc.execute("CREATE TRIGGER refuse_claims BEFORE UPDATE ON import_job"
                + " FOR EACH STATEMENT EXECUTE FUNCTION refuse_claims()");
        long before = jdbc.queryForObject("SELECT nextval('refused_claims')", Long.class);
        Thread.sleep(2000);
        long tries = jdbc.queryForObject("SELECT nextval('refused_claims')", Long.class) - before - 1;

        // the workers of both stages poll every 100 ms here: about 20 tries each in 2 s, where a worker that polled
        // again at once after each refusal tried thousands of times
        assertThat(tries).as("claims tried in 2 s").isPositive().isLessThan(400);
    }
}
