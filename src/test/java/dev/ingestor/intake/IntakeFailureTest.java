package dev.ingestor.intake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Failures injected inside PostgreSQL, between hashing and commit: the key row is already inserted in the
 * intake transaction when the job insert fails. Nothing of the attempt may survive, and a retry must ingest.
 */
class IntakeFailureTest extends IngestorTestSupport {

    private static final byte[] ADVICE = "source_id,sku,quantity,delivery_date\nF-1,SKU-9,3,2026-12-24\n"
            .getBytes(StandardCharsets.UTF_8);

    @AfterEach
    void removeFaults() {
        jdbc.execute("DROP TRIGGER IF EXISTS inject_fault ON import_job");
        jdbc.execute("DROP FUNCTION IF EXISTS inject_fault()");
        jdbc.execute("DROP SEQUENCE IF EXISTS fault_calls");
    }

    /** Makes the job insert fail on its first {@code failures} calls; a sequence counts outside the rollback. */
    private void failJobInsert(int failures, String action) {
        jdbc.execute("CREATE SEQUENCE fault_calls");
        jdbc.execute("""
                CREATE FUNCTION inject_fault() RETURNS trigger AS $$
                BEGIN
                  IF nextval('fault_calls') <= %d THEN
                    %s;
                  END IF;
                  RETURN NEW;
                END $$ LANGUAGE plpgsql""".formatted(failures, action));
        jdbc.execute(
                "CREATE TRIGGER inject_fault BEFORE INSERT ON import_job FOR EACH ROW EXECUTE FUNCTION inject_fault()");
    }

    @Test
    void aFailureThatOutlastsRedeliveryLeavesNoKeyAndTheRetryIngests() throws Exception {
        failJobInsert(Integer.MAX_VALUE, "RAISE EXCEPTION 'disk full (injected)'");
        drop("ACME", "advice.csv", ADVICE);

        awaitFiles(INBOX.resolve("ACME/.failed"), 1);
        // 1 attempt + 3 redeliveries, each of which had inserted the key inside its transaction
        assertThat(jdbc.queryForObject("SELECT last_value FROM fault_calls", Long.class)).isEqualTo(4);
        assertThat(keyCount()).isZero();
        assertThat(jobCount()).isZero();

        removeFaults();
        Path failed = filesIn(INBOX.resolve("ACME/.failed")).get(0);
        Files.move(failed, INBOX.resolve("ACME/advice.csv"));
        awaitJobs(1);
        assertThat(keyCount()).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT duplicate_count FROM import_job", Integer.class)).isZero();
    }

    @Test
    void aTransientFailureIsRedeliveredAndIngestedOnce() throws Exception {
        failJobInsert(2, "RAISE EXCEPTION 'could not serialize access (injected)' USING ERRCODE = '40001'");
        drop("ACME", "advice.csv", ADVICE);

        awaitFiles(INBOX.resolve("ACME/.done"), 1);
        assertThat(jdbc.queryForObject("SELECT last_value FROM fault_calls", Long.class)).isEqualTo(3);
        assertThat(jobCount()).isEqualTo(1);
        assertThat(keyCount()).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT duplicate_count FROM import_job", Integer.class)).isZero();
    }

    @Test
    void aConnectionLostMidTransactionLeavesNothingAndTheRedeliveryIngests() throws Exception {
        // the database session dies between the key insert and the commit, as if the server or network went
        failJobInsert(1, "PERFORM pg_terminate_backend(pg_backend_pid())");
        drop("ACME", "advice.csv", ADVICE);

        awaitFiles(INBOX.resolve("ACME/.done"), 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> jobCount() == 1);
        assertThat(keyCount()).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT duplicate_count FROM import_job", Integer.class)).isZero();
    }
}
