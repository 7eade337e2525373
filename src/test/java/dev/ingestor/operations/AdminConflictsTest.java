package dev.ingestor.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.intake.IntakeResult;
import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The admin actions an operator may not take: each is answered 409 problem+json saying why, and changes
 * nothing, neither the job (its state, counts and lease) nor the request key.
 */
@Timeout(120)
class AdminConflictsTest extends IngestorTestSupport {

    private static final String HEADER = "source_id,source_version,sku,quantity,delivery_date\n";

    private UUID ingest(String content) {
        return producer.requestBodyAndHeaders("direct:intake", content.getBytes(StandardCharsets.UTF_8),
                Map.of(IntakeHeaders.SUPPLIER, "ACME", IntakeHeaders.FILE_NAME, "conflict.csv", IntakeHeaders.SOURCE,
                        "test"),
                IntakeResult.class).job().id();
    }

    private Map<String, Object> job(UUID id) {
        return jdbc.queryForMap("SELECT * FROM import_job WHERE id = ?", id);
    }

    private Map<String, Object> awaitJob(UUID id, String state) {
        await().atMost(Duration.ofSeconds(30)).until(() -> state.equals(job(id).get("state")));
        return job(id);
    }

    private HttpResponse<String> admin(String method, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri("/api/v1/admin" + path)).header("X-Api-Key", ADMIN_KEY)
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @org.springframework.beans.factory.annotation.Autowired
    JobActions actions;
    @org.springframework.beans.factory.annotation.Autowired
    javax.sql.DataSource dataSource;

    /**
     * A replay of a dead letter takes the job's row before the letter's, as retrying a supplier's failed jobs and
     * retention do: another transaction that holds the job and then touches its letter does not make a circle with
     * it (a deadlock, which PostgreSQL ends by aborting one of them).
     */
    @Test
    void aReplayTakesTheJobBeforeItsLetterAsRetryAndRetentionDo() throws Exception {
        UUID id = ingest(HEADER + "DL-1,1,SKU,1,2026-12-01\n");
        awaitJob(id, "COMPLETED");
        jdbc.update("UPDATE import_job SET state = 'FAILED' WHERE id = ?", id);
        long letter = jdbc.queryForObject("INSERT INTO dead_letter (job_id, stage, exception, attempts)"
                + " VALUES (?, 'validation', 'java.lang.IllegalStateException', 3) RETURNING id", Long.class, id);
        try (java.sql.Connection other = dataSource.getConnection()) {
            other.setAutoCommit(false);
            try (java.sql.PreparedStatement job = other.prepareStatement(
                    "SELECT id FROM import_job WHERE id = ? FOR UPDATE")) {
                job.setObject(1, id);
                job.executeQuery().close();
            }
            java.util.concurrent.CompletableFuture<JobActions.Replay> replay = java.util.concurrent.CompletableFuture
                    .supplyAsync(() -> actions.replayDeadLetter(letter, "test"));
            await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject("SELECT count(*) FROM"
                    + " pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%import_job%'",
                    Long.class) == 1);
            // the job held, its letter next, as retrying a supplier's failed jobs takes them
            other.createStatement()
                    .executeUpdate("UPDATE dead_letter SET replayed_by = replayed_by WHERE id = " + letter);
            other.commit();
            assertThat(replay.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(JobActions.Replay.QUEUED);
        }
        // sent back to validation, which this instance's workers may already have taken it into
        assertThat(job(id).get("state")).isIn("RECEIVED", "VALIDATING", "PROCESSING", "COMPLETED");
        assertThat(jdbc.queryForObject("SELECT replayed_at IS NOT NULL FROM dead_letter WHERE id = ?", Boolean.class,
                letter)).isTrue();
    }

    @Test
    void aJobAWorkerHoldsIsNeitherRevalidatedNorReprocessed() throws Exception {
        UUID id = ingest(HEADER + "H-1,1,SKU,1,2026-12-01\n");
        awaitJob(id, "COMPLETED");
        // a worker of another instance has the job in processing under a live lease (the admin page shows it
        // moving): an action now would run a second worker on the same job
        jdbc.update("UPDATE import_job SET state = 'PROCESSING', lease_owner = 'other-instance/worker-1',"
                + " lease_until = now() + interval '1 hour' WHERE id = ?", id);
        Map<String, Object> held = job(id);

        assertProblem(admin("POST", "/jobs/" + id + "/revalidate"), 409, "not at rest");
        assertProblem(admin("POST", "/jobs/" + id + "/reprocess"), 409, "not finished");

        assertThat(job(id)).isEqualTo(held);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item", Long.class)).isEqualTo(1);
    }

    @Test
    void aRejectedJobIsNotReprocessed() throws Exception {
        // no records: rejected by validation, so there is nothing to process
        UUID id = ingest(HEADER);
        Map<String, Object> rejected = awaitJob(id, "REJECTED");

        assertProblem(admin("POST", "/jobs/" + id + "/reprocess"), 409, "never validated");

        // still rejected, with its reason, and no worker picks it up (on purpose: the workers poll several times)
        Thread.sleep(500);
        assertThat(job(id)).isEqualTo(rejected);
        assertThat((String) rejected.get("error")).isEqualTo("the file holds no records");
    }

    @Test
    void aCompletedRequestKeyIsNotReleasedAndItsStoredAnswerStays() throws Exception {
        String key = "completed-" + UUID.randomUUID();
        byte[] batch = """
                {"items": [{"source_id": "K-1", "sku": "SKU", "quantity": 1, "delivery_date": "2026-12-01"}]}"""
                .getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> first = post("/api/v1/suppliers/ACME/items", ACME_KEY, "application/json", batch,
                "Idempotency-Key", key);
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        Map<String, Object> stored = jdbc
                .queryForMap("SELECT * FROM http_request WHERE supplier = 'ACME' AND idempotency_key = ?", key);
        assertThat(stored.get("state")).isEqualTo("COMPLETED");

        assertProblem(admin("DELETE", "/idempotency-keys/ACME/" + key), 409, "not in progress");

        assertThat(jdbc.queryForMap("SELECT * FROM http_request WHERE supplier = 'ACME' AND idempotency_key = ?", key))
                .usingRecursiveComparison().isEqualTo(stored);
        // the partner's retry is still answered from the stored response, not processed a second time
        HttpResponse<String> retry = post("/api/v1/suppliers/ACME/items", ACME_KEY, "application/json", batch,
                "Idempotency-Key", key);
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM import_job WHERE source = 'http-items'", Long.class))
                .isEqualTo(1);
    }
}
