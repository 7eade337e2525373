package dev.ingestor.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import dev.ingestor.job.JobClaims;
import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A dead letter's replay sends its job back to where the job failed, whichever of its letters is replayed: an older
 * letter, or the letter of an event Kafka refused after the failure, must not send a job that failed in processing
 * back to its first record. The letter of a refused event is acknowledged, never a reason to send its job round, and
 * every action that sends a job round marks its waiting letters, so none can send it round once more. On the real
 * PostgreSQL, through the admin API, with this instance's workers held back so the jobs are seen as the actions left
 * them.
 */
class DeadLetterReplayTest extends IngestorTestSupport {

    private static final String HEADER = "source_id,source_version,sku,quantity,delivery_date\n";

    @Autowired
    JobClaims claims;

    @AfterEach
    void letWorkersGo() {
        jdbc.execute("ALTER TABLE import_job DROP CONSTRAINT IF EXISTS hold_back");
    }

    @Test
    void aSuppliersRetryResumesAJobFromItsCheckpointWhateverItsNewestLetter() throws Exception {
        UUID job = failedInProcessing();
        long failure = letter(job, "processing");
        long refused = letter(job, "relay");

        assertThat(send("/api/v1/admin/suppliers/ACME/retry-failed").body()).contains("\"jobs\":1");
        assertThat(jdbc.queryForMap("SELECT state, records_done FROM import_job WHERE id = ?", job))
                .containsEntry("state", "PROCESSING").containsEntry("records_done", 2L);
        assertThat(replayed(failure)).isTrue();
        assertThat(replayed(refused)).as("a refused event waits to be acknowledged").isFalse();
    }

    @Test
    void anOlderLetterReplayedSendsTheJobBackToWhereItFailedLast() throws Exception {
        UUID job = failedInProcessing();
        long older = letter(job, "validation");
        long newer = letter(job, "processing");

        HttpResponse<String> replay = send("/api/v1/admin/dead-letters/" + older + "/replay");
        assertThat(replay.body()).contains("queued again");
        assertThat(jdbc.queryForMap("SELECT state, records_done FROM import_job WHERE id = ?", job))
                .containsEntry("state", "PROCESSING").containsEntry("records_done", 2L);
        assertThat(replayed(older)).isTrue();
        assertThat(replayed(newer)).as("the same failure, sent round once").isTrue();
        assertThat(post("/api/v1/admin/dead-letters/" + newer + "/replay", ADMIN_KEY, "application/json", new byte[0])
                .statusCode()).isEqualTo(409);
    }

    @Test
    void theLetterOfARefusedEventIsAcknowledgedAndItsJobStaysAsItIs() throws Exception {
        UUID job = intake("ACME", "refused-" + UUID.randomUUID() + ".csv",
                HEADER + "DR-" + UUID.randomUUID() + ",1,SKU,1,2026-12-01\n");
        awaitState(job, "COMPLETED");
        long refused = letter(job, "relay");

        HttpResponse<String> acknowledged = send("/api/v1/admin/dead-letters/" + refused + "/replay");
        assertThat(acknowledged.body()).contains("acknowledged");
        assertThat(replayed(refused)).isTrue();
        assertThat(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, job))
                .isEqualTo("COMPLETED");
    }

    @Test
    void aReprocessMarksTheJobsLettersReplayed() throws Exception {
        UUID job = failedInProcessing();
        long failure = letter(job, "processing");

        send("/api/v1/admin/jobs/" + job + "/reprocess");
        assertThat(replayed(failure)).isTrue();
        assertThat(post("/api/v1/admin/dead-letters/" + failure + "/replay", ADMIN_KEY, "application/json",
                new byte[0]).statusCode()).isEqualTo(409);
    }

    /** A job of three records that failed in processing after two of them were committed; workers held back. */
    private UUID failedInProcessing() {
        String prefix = "DR-" + UUID.randomUUID();
        UUID job = intake("ACME", prefix + ".csv", HEADER + prefix + "-1,1,SKU,1,2026-12-01\n" + prefix
                + "-2,1,SKU,1,2026-12-01\n" + prefix + "-3,1,SKU,1,2026-12-01\n");
        awaitState(job, "COMPLETED");
        jdbc.execute("ALTER TABLE import_job ADD CONSTRAINT hold_back CHECK " + notLeasedBy(claims.owner())
                + " NOT VALID");
        jdbc.update("UPDATE import_job SET state = 'FAILED', records_done = 2, error = 'failed' WHERE id = ?", job);
        return job;
    }

    private long letter(UUID job, String stage) {
        return jdbc.queryForObject("INSERT INTO dead_letter (job_id, stage, exception, message, attempts)"
                + " VALUES (?, ?, 'java.lang.IllegalStateException', 'x', 1) RETURNING id", Long.class, job, stage);
    }

    private boolean replayed(long letter) {
        return jdbc.queryForObject("SELECT replayed_at IS NOT NULL FROM dead_letter WHERE id = ?", Boolean.class,
                letter);
    }

    private HttpResponse<String> send(String path) throws Exception {
        HttpResponse<String> response = post(path, ADMIN_KEY, "application/json", new byte[0]);
        assertThat(response.statusCode()).as(path + " " + response.body()).isEqualTo(202);
        return response;
    }

    private void awaitState(UUID id, String state) {
        await().atMost(Duration.ofSeconds(30)).until(
                () -> state.equals(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, id)));
    }
}
