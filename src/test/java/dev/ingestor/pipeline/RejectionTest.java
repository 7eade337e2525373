package dev.ingestor.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A job found unreadable as a whole is REJECTED and its quarantine cleared in one transaction: an interruption
 * between the two never leaves a final REJECTED job that still shows the records its last run quarantined.
 */
class RejectionTest extends IngestorTestSupport {

    private static final String HEADER = "source_id,source_version,sku,quantity,delivery_date\n";

    @AfterEach
    void dropTheFault() {
        jdbc.execute("DROP TRIGGER IF EXISTS refuse_quarantine_delete ON job_record");
        jdbc.execute("DROP FUNCTION IF EXISTS refuse_quarantine_delete()");
        jdbc.execute("DROP SEQUENCE IF EXISTS quarantine_delete_tries");
    }

    @Test
    void aRejectionThatCannotClearItsQuarantineIsNoRejection() throws Exception {
        // the database goes away between the rejection and the quarantine's delete: here the delete fails, and
        // counts its tries in a sequence, which a rollback does not take back
        jdbc.execute("CREATE SEQUENCE quarantine_delete_tries");
        jdbc.execute("CREATE FUNCTION refuse_quarantine_delete() RETURNS trigger LANGUAGE plpgsql AS"
                + " $$BEGIN PERFORM nextval('quarantine_delete_tries');"
                + " RAISE EXCEPTION 'test: the quarantine cannot be deleted'; END$$");
        jdbc.execute("CREATE TRIGGER refuse_quarantine_delete BEFORE DELETE ON job_record FOR EACH ROW"
                + " EXECUTE FUNCTION refuse_quarantine_delete()");
        // 1,200 bad records (a thousand are written before the end is read), then a quoted field never closed
        StringBuilder csv = new StringBuilder(HEADER);
        for (int i = 1; i <= 1200; i++) {
            csv.append("RJ-").append(i).append(",1,SKU,x,2026-12-01\n");
        }
        csv.append("RJ-last,1,\"SKU,1,2026-12-01\n");
        UUID id = intake("ACME", "unclosed-" + UUID.randomUUID() + ".csv", csv.toString());

        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT is_called FROM quarantine_delete_tries", Boolean.class));
        Map<String, Object> refused = jdbc.queryForMap("SELECT state, (SELECT count(*) FROM job_record r"
                + " WHERE r.job_id = j.id) AS records FROM import_job j WHERE id = ?", id);
        assertThat(refused).as("rolled back with the delete").containsEntry("state", "VALIDATING");

        // the worker's lease lapses; the job is taken over, found unreadable again and rejected, its rows gone
        dropTheFault();
        jdbc.update("UPDATE import_job SET lease_until = now() - interval '1 second' WHERE id = ?", id);
        await().atMost(Duration.ofSeconds(30)).until(() -> "REJECTED".equals(
                jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, id)));
        assertThat(jdbc.queryForMap("SELECT error, (SELECT count(*) FROM job_record r WHERE r.job_id = j.id)"
                + " AS records FROM import_job j WHERE id = ?", id))
                .containsEntry("records", 0L)
                .hasEntrySatisfying("error", error -> assertThat((String) error).contains("line 1202"));
    }
}
