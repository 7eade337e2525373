package dev.ingestor.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.intake.IntakeResult;
import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** The admin API: failed jobs with their errors, and actions whose effects stay exactly once. */
class AdminApiTest extends IngestorTestSupport {

    static final String HEADER = "source_id,source_version,sku,quantity,delivery_date\n";

    @Autowired
    ObjectMapper mapper;

    @AfterEach
    void dropFaults() {
        jdbc.execute("DROP TRIGGER IF EXISTS admin_fault ON item");
        jdbc.execute("DROP FUNCTION IF EXISTS admin_fault()");
    }

    /** Processing fails with an error no retry fixes, so the job goes straight to the dead-letter channel. */
    void breakProcessing() {
        jdbc.execute(
                """
                        CREATE OR REPLACE FUNCTION admin_fault() RETURNS trigger AS $$
                        BEGIN RAISE EXCEPTION 'item table misconfigured (injected)' USING ERRCODE = '23514'; END $$ LANGUAGE plpgsql""");
        jdbc.execute("CREATE TRIGGER admin_fault BEFORE INSERT ON item FOR EACH ROW EXECUTE FUNCTION admin_fault()");
    }

    UUID ingest(String content) {
        return producer.requestBodyAndHeaders("direct:intake", content.getBytes(StandardCharsets.UTF_8),
                Map.of(IntakeHeaders.SUPPLIER, "ACME", IntakeHeaders.FILE_NAME, "admin.csv", IntakeHeaders.SOURCE,
                        "test"),
                IntakeResult.class).job().id();
    }

    String state(UUID id) {
        return jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, id);
    }

    void awaitState(UUID id, String state) {
        await().atMost(Duration.ofSeconds(30)).until(() -> state(id).equals(state));
    }

    long events(UUID id) {
        return jdbc.queryForObject(
                "SELECT count(*) FROM outbox_all WHERE topic = 'ingestor.items' AND payload::jsonb->>'job_id' = ?",
                Long.class, id.toString());
    }

    /** The job's events as they reached Kafka (after the outbox relay has drained). */
    long kafkaEvents(UUID id) throws Exception {
        await().atMost(Duration.ofSeconds(20)).until(
                () -> jdbc.queryForObject("SELECT count(*) FROM outbox", Long.class) == 0);
        return dev.ingestor.support.TestKafka.readAll("ingestor.items", Duration.ofSeconds(1)).stream()
                .filter(r -> r.value().contains(id.toString())).count();
    }

    HttpResponse<String> admin(String method, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri("/api/v1/admin" + path)).header("X-Api-Key", ADMIN_KEY)
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * A job that failed in processing, then had 149 of its earlier events refused by Kafka (a letter each): its view
     * holds its latest 100 letters and says there are earlier ones, and the failed jobs' list names the stage that
     * failed it, not the latest refused event.
     */
    @Test
    void aJobsViewHoldsItsLatestLettersAndItsFailureIsTheStagesNotARefusedEvents() throws Exception {
        UUID id = ingest(HEADER + "L-" + UUID.randomUUID() + ",1,SKU,1,2026-12-01\n");
        awaitState(id, "COMPLETED");
        jdbc.update("UPDATE import_job SET state = 'FAILED', error = 'processing failed' WHERE id = ?", id);
        long failure = jdbc.queryForObject("INSERT INTO dead_letter (job_id, stage, exception, message, attempts)"
                + " VALUES (?, 'processing', 'java.lang.IllegalStateException', 'the stage failed', 3) RETURNING id",
                Long.class, id);
        jdbc.update("INSERT INTO dead_letter (job_id, stage, exception, message, attempts)"
                + " SELECT ?, 'relay', 'org.apache.kafka.common.errors.RecordTooLargeException', 'event ' || g, 1"
                + " FROM generate_series(1, 149) g", id);
        try {
            JsonNode detail = mapper.readTree(admin("GET", "/jobs/" + id).body());
            JsonNode letters = detail.get("deadLetters");
            // the failure's letter first, the one a replay resumes the job by, then the latest 100
            assertThat(letters.size()).isEqualTo(101);
            assertThat(letters.get(0).get("id").asLong()).isEqualTo(failure);
            assertThat(letters.get(1).get("message").asString()).isEqualTo("event 50");
            assertThat(letters.get(100).get("message").asString()).isEqualTo("event 149");
            assertThat(detail.get("earlierDeadLetters").asBoolean()).isTrue();

            JsonNode failed = null;
            for (JsonNode row : mapper.readTree(admin("GET", "/failed-jobs?supplier=ACME&size=1000").body())
                    .get("items")) {
                if (row.get("id").asString().equals(id.toString())) {
                    failed = row;
                }
            }
            assertThat(failed).isNotNull();
            assertThat(failed.get("stage").asString()).isEqualTo("processing");
            assertThat(failed.get("deadLetterId").asLong()).isEqualTo(failure);

            jdbc.update("DELETE FROM dead_letter WHERE job_id = ? AND stage = 'relay'", id);
            detail = mapper.readTree(admin("GET", "/jobs/" + id).body());
            assertThat(detail.get("deadLetters").size()).isEqualTo(1);
            assertThat(detail.get("earlierDeadLetters").asBoolean()).isFalse();
        } finally {
            jdbc.update("DELETE FROM import_job WHERE id = ?", id);
        }
    }

    /**
     * The letters of a job's events Kafka refused for good are acknowledged in one call, all of them, and nothing else:
     * the job's own failure keeps its letter, another job's refused events keep theirs, and the job is not sent round.
     */
    @Test
    void everyRefusedEventOfAJobIsAcknowledgedAtOnceAndNothingElse() throws Exception {
        UUID id = ingest(HEADER + "A-" + UUID.randomUUID() + ",1,SKU,1,2026-12-01\n");
        UUID other = ingest(HEADER + "A-" + UUID.randomUUID() + ",1,SKU,1,2026-12-01\n");
        awaitState(id, "COMPLETED");
        awaitState(other, "COMPLETED");
        jdbc.update("UPDATE import_job SET state = 'FAILED', error = 'processing failed' WHERE id = ?", id);
        long failure = jdbc.queryForObject("INSERT INTO dead_letter (job_id, stage, exception, message, attempts)"
                + " VALUES (?, 'processing', 'java.lang.IllegalStateException', 'the stage failed', 3) RETURNING id",
                Long.class, id);
        for (UUID job : List.of(id, other)) {
            jdbc.update("INSERT INTO dead_letter (job_id, stage, exception, message, attempts)"
                    + " SELECT ?, 'relay', 'org.apache.kafka.common.errors.RecordTooLargeException', 'event ' || g, 1"
                    + " FROM generate_series(1, 150) g", job);
        }
        try {
            HttpResponse<String> answer = admin("POST", "/jobs/" + id + "/acknowledge-refused-events");
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);
            assertThat(mapper.readTree(answer.body()).get("result").asString()).startsWith("150 refused event(s)");
            assertThat(jdbc.queryForObject("SELECT count(*) FROM dead_letter WHERE job_id = ? AND stage = 'relay'"
                    + " AND replayed_at IS NULL", Long.class, id)).isZero();
            assertThat(jdbc.queryForObject("SELECT replayed_at IS NULL FROM dead_letter WHERE id = ?", Boolean.class,
                    failure)).as("the job's failure is not a refused event").isTrue();
            assertThat(jdbc.queryForObject("SELECT count(*) FROM dead_letter WHERE job_id = ? AND replayed_at IS NULL",
                    Long.class, other)).isEqualTo(150);
            assertThat(state(id)).isEqualTo("FAILED");
            assertProblem(admin("POST", "/jobs/" + id + "/acknowledge-refused-events"), 409, "no refused event");
            assertProblem(admin("POST", "/jobs/nope/acknowledge-refused-events"), 400, "nope");
        } finally {
            jdbc.update("DELETE FROM import_job WHERE id = ANY (?)", (Object) new UUID[] {id, other});
        }
    }

    @Test
    void onlyTheAdminKeyReachesTheAdminApi() throws Exception {
        assertProblem(get("/api/v1/admin/overview", ACME_KEY), 403, "admin key");
        assertProblem(get("/api/v1/admin/overview", null), 401, "needs a key");
        assertThat(get("/api/v1/admin/overview", ADMIN_KEY).statusCode()).isEqualTo(200);
    }

    @Test
    void aFailedJobIsShownWithItsErrorAndReplayingItTakesEffectOnce() throws Exception {
        breakProcessing();
        UUID id = ingest(HEADER + "A-1,1,SKU,1,2026-12-01\nA-2,1,SKU,2,2026-12-01\n");
        awaitState(id, "FAILED");

        JsonNode failed = mapper.readTree(admin("GET", "/failed-jobs").body()).get("items").get(0);
        assertThat(failed.get("id").asString()).isEqualTo(id.toString());
        assertThat(failed.get("stage").asString()).isEqualTo("processing");
        assertThat(failed.get("message").asString()).contains("item table misconfigured");
        assertThat(failed.get("exception").asString()).isNotBlank();
        assertThat(failed.get("attempts").asInt()).isPositive();
        JsonNode overview = mapper.readTree(admin("GET", "/overview").body());
        assertThat(overview.get("states").get("FAILED").asInt()).isEqualTo(1);
        assertThat(overview.get("deadLettersWaiting").asInt()).isEqualTo(1);

        dropFaults();
        long letter = failed.get("deadLetterId").asLong();
        assertThat(admin("POST", "/dead-letters/" + letter + "/replay").statusCode()).isEqualTo(202);
        awaitState(id, "COMPLETED");
        assertThat(events(id)).isEqualTo(2);
        assertThat(kafkaEvents(id)).isEqualTo(2);
        // the same dead letter twice: refused, nothing happens again
        assertProblem(admin("POST", "/dead-letters/" + letter + "/replay"), 409, "already replayed");
        JsonNode detail = mapper.readTree(admin("GET", "/jobs/" + id).body());
        assertThat(detail.get("deadLetters").get(0).get("replayedBy").asString()).startsWith("admin(key ");
    }

    @Test
    void revalidateAndReprocessLeaveEffectsExactlyOnce() throws Exception {
        UUID id = ingest(HEADER + "R-1,1,SKU,1,2026-12-01\nR-2,1,SKU,2,2026-12-01\nR-3,1,SKU,-1,2026-12-01\n");
        awaitState(id, "COMPLETED_WITH_ERRORS");
        assertThat(events(id)).isEqualTo(2);

        assertThat(admin("POST", "/jobs/" + id + "/revalidate").statusCode()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> state(id).equals("COMPLETED_WITH_ERRORS")
                && jdbc.queryForObject("SELECT replayed FROM import_job WHERE id = ?", Long.class, id) == 2);
        assertThat(events(id)).isEqualTo(2);
        assertThat(jdbc.queryForObject("SELECT quarantined FROM import_job WHERE id = ?", Long.class, id)).isEqualTo(1);
        // the earlier run's quarantine gave way to this run's, which validation starts from nothing
        assertThat(jdbc.queryForObject("SELECT count(*) FROM job_record WHERE job_id = ?", Long.class, id))
                .isEqualTo(1);

        assertThat(admin("POST", "/jobs/" + id + "/reprocess").statusCode()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> state(id).equals("COMPLETED_WITH_ERRORS")
                && jdbc.queryForObject("SELECT replayed FROM import_job WHERE id = ?", Long.class, id) == 2);
        assertThat(events(id)).isEqualTo(2);
        // and on Kafka itself: the first run's two events, nothing from the re-runs
        assertThat(kafkaEvents(id)).isEqualTo(2);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item", Long.class)).isEqualTo(2);
    }

    /**
     * An action sent from a row the operator saw FAILED (the console's Failed jobs list, a view not redrawn yet)
     * leaves a job that has finished since as it is: the state it expects is named, and the answer says so.
     */
    @Test
    void anActionThatNamesTheStateItSawLeavesAJobInAnotherStateAlone() throws Exception {
        UUID id = ingest(HEADER + "E-1,1,SKU,1,2026-12-01\n");
        awaitState(id, "COMPLETED");
        long updatedAt = jdbc.queryForObject("SELECT extract(epoch FROM updated_at) * 1e6 FROM import_job WHERE id = ?",
                Double.class, id).longValue();

        assertProblem(admin("POST", "/jobs/" + id + "/revalidate?expectedState=FAILED"), 409, "no longer FAILED");
        assertProblem(admin("POST", "/jobs/" + id + "/reprocess?expectedState=FAILED"), 409, "no longer FAILED");
        assertThat(state(id)).isEqualTo("COMPLETED");
        assertThat(jdbc.queryForObject("SELECT extract(epoch FROM updated_at) * 1e6 FROM import_job WHERE id = ?",
                Double.class, id).longValue()).isEqualTo(updatedAt);
        assertProblem(admin("POST", "/jobs/" + id + "/revalidate?expectedState=DONE"), 400, "DONE");

        assertThat(admin("POST", "/jobs/" + id + "/reprocess?expectedState=COMPLETED").statusCode()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> state(id).equals("COMPLETED")
                && jdbc.queryForObject("SELECT replayed FROM import_job WHERE id = ?", Long.class, id) == 1);
        assertThat(admin("POST", "/jobs/" + id + "/revalidate?expectedState=completed").statusCode()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> state(id).equals("COMPLETED"));
        assertThat(events(id)).isEqualTo(1);
    }

    @Test
    void retryFailedSendsEveryFailedJobOfASupplierBack() throws Exception {
        breakProcessing();
        UUID one = ingest(HEADER + "F-1,1,SKU,1,2026-12-01\n");
        UUID two = ingest(HEADER + "F-2,1,SKU,1,2026-12-01\n");
        awaitState(one, "FAILED");
        awaitState(two, "FAILED");
        dropFaults();
        HttpResponse<String> retried = admin("POST", "/suppliers/ACME/retry-failed");
        assertThat(retried.statusCode()).isEqualTo(202);
        assertThat(mapper.readTree(retried.body()).get("jobs").asInt()).isEqualTo(2);
        awaitState(one, "COMPLETED");
        awaitState(two, "COMPLETED");
        assertThat(events(one) + events(two)).isEqualTo(2);
        // a code no supplier has (a typo): said so, not "0 jobs sent back"
        assertProblem(admin("POST", "/suppliers/ACMF/retry-failed"), 404, "no supplier 'ACMF' is configured");
    }

    @Test
    void failedJobsArePagedByCursorOrByNumberWithTheTotal() throws Exception {
        breakProcessing();
        Set<String> failed = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            UUID id = ingest(HEADER + "P-" + i + ",1,SKU,1,2026-12-01\n");
            awaitState(id, "FAILED");
            failed.add(id.toString());
        }
        // by cursor: no count, whether more follow
        JsonNode first = mapper.readTree(admin("GET", "/failed-jobs?size=2").body());
        assertThat(first.has("total")).isFalse();
        assertThat(first.get("size").asInt()).isEqualTo(2);
        assertThat(first.get("more").asBoolean()).isTrue();
        assertThat(first.get("items")).hasSize(2);
        JsonNode second = mapper.readTree(admin("GET", "/failed-jobs?size=2&after=" + first.get("next").asString())
                .body());
        assertThat(second.get("more").asBoolean()).isFalse();
        assertThat(second.get("items")).hasSize(1);
        // by page number, as before cursors: page and the total
        JsonNode numbered = mapper.readTree(admin("GET", "/failed-jobs?size=2&page=1").body());
        assertThat(numbered.get("page").asInt()).isEqualTo(1);
        assertThat(numbered.get("total").asInt()).isEqualTo(3);
        assertThat(numbered.get("items")).hasSize(1);
        Set<String> listed = new HashSet<>();
        first.get("items").forEach(job -> listed.add(job.get("id").asString()));
        second.get("items").forEach(job -> listed.add(job.get("id").asString()));
        assertThat(listed).isEqualTo(failed);
        // without paging parameters: the first page of the default size
        JsonNode all = mapper.readTree(admin("GET", "/failed-jobs?supplier=ACME").body());
        assertThat(all.get("size").asInt()).isEqualTo(50);
        assertThat(all.get("items")).hasSize(3);
        assertThat(mapper.readTree(admin("GET", "/failed-jobs?supplier=GLOBEX").body()).get("items")).isEmpty();
        assertProblem(admin("GET", "/failed-jobs?size=0"), 400, "size must be between 1 and 1000");
        assertProblem(admin("GET", "/failed-jobs?page=x"), 400, "page 'x' is not a whole number");
    }

    @Test
    void theJobListOfEverySupplierFiltersByTimeReceived() throws Exception {
        UUID id = ingest(HEADER + "T-1,1,SKU,1,2026-12-01\n");
        Instant later = Instant.now().plusSeconds(3600);
        JsonNode before = mapper.readTree(admin("GET", "/jobs?until=" + later).body());
        assertThat(before.get("items")).hasSize(1);
        assertThat(before.get("items").get(0).get("id").asString()).isEqualTo(id.toString());
        assertThat(mapper.readTree(admin("GET", "/jobs?since=" + later).body()).get("items")).isEmpty();
        assertThat(mapper.readTree(admin("GET", "/jobs?since=" + later.minusSeconds(7200) + "&supplier=ACME").body())
                .get("items")).hasSize(1);
        assertProblem(admin("GET", "/jobs?since=yesterday"), 400, "since 'yesterday' is not an ISO instant");
        assertProblem(admin("GET", "/jobs?until=%2B300000-01-01T00:00:00Z"), 400, "outside the years 1 to 9999");
        assertProblem(admin("GET", "/jobs?q=a&since=%2B300000-01-01T00:00:00Z"), 400, "outside the years 1 to 9999");
    }

    @Test
    void aStuckRequestKeyIsLookedUpAndReleased() throws Exception {
        jdbc.update(
                "INSERT INTO http_request (supplier, idempotency_key, fingerprint, state, owner, lease_until, expires_at)"
                        + " VALUES ('ACME', 'stuck-1', repeat('a', 64), 'IN_PROGRESS', 'gone/1', now() + interval '1 hour', now() + interval '1 day')");
        JsonNode key = mapper.readTree(admin("GET", "/idempotency-keys/ACME/stuck-1").body());
        assertThat(key.get("state").asString()).isEqualTo("IN_PROGRESS");
        assertThat(admin("DELETE", "/idempotency-keys/ACME/stuck-1").statusCode()).isEqualTo(202);
        assertProblem(admin("GET", "/idempotency-keys/ACME/stuck-1"), 404, "stuck-1");
        assertProblem(admin("DELETE", "/idempotency-keys/ACME/stuck-1"), 409, "not in progress");

        // a key no path segment carries (a '/', a '%', a dot segment): named by ?key=
        for (String odd : List.of("order/17", "50%", "..")) {
            jdbc.update("INSERT INTO http_request (supplier, idempotency_key, fingerprint, state, owner, lease_until,"
                    + " expires_at) VALUES ('ACME', ?, repeat('a', 64), 'IN_PROGRESS', 'gone/1',"
                    + " now() + interval '1 hour', now() + interval '1 day')", odd);
            String query = "/idempotency-keys/ACME?key=" + java.net.URLEncoder.encode(odd, StandardCharsets.UTF_8);
            assertThat(mapper.readTree(admin("GET", query).body()).get("key").asString()).isEqualTo(odd);
            assertThat(admin("DELETE", query).statusCode()).as(odd).isEqualTo(202);
            assertProblem(admin("GET", query), 404, odd);
        }
        assertProblem(admin("GET", "/idempotency-keys/ACME"), 400, "name the Idempotency-Key");
        assertProblem(admin("DELETE", "/idempotency-keys/ACME?key="), 400, "name the Idempotency-Key");
    }

    /**
     * A release that names the owner the operator saw leaves a key a retry has taken over since (its owner's lease ran
     * out) to that retry, which is running.
     */
    @Test
    void aReleaseThatNamesTheOwnerItSawLeavesAKeyTakenOverSince() throws Exception {
        jdbc.update("INSERT INTO http_request (supplier, idempotency_key, fingerprint, state, owner, lease_until,"
                + " expires_at) VALUES ('ACME', 'taken-over', repeat('a', 64), 'IN_PROGRESS', 'live/2',"
                + " now() + interval '1 hour', now() + interval '1 day')");

        assertProblem(admin("DELETE", "/idempotency-keys/ACME?key=taken-over&owner=gone%2F1"), 409,
                "under gone/1 (taken over or finished since)");
        assertProblem(admin("DELETE", "/idempotency-keys/ACME/taken-over?owner=gone%2F1"), 409, "taken over");
        assertThat(mapper.readTree(admin("GET", "/idempotency-keys/ACME?key=taken-over").body()).get("owner")
                .asString()).isEqualTo("live/2");
        assertThat(admin("DELETE", "/idempotency-keys/ACME?key=taken-over&owner=live%2F2").statusCode())
                .isEqualTo(202);
        assertProblem(admin("GET", "/idempotency-keys/ACME?key=taken-over"), 404, "taken-over");
    }

    UUID ingestNamed(String fileName, String content) {
        return producer.requestBodyAndHeaders("direct:intake", content.getBytes(StandardCharsets.UTF_8),
                Map.of(IntakeHeaders.SUPPLIER, "ACME", IntakeHeaders.FILE_NAME, fileName, IntakeHeaders.SOURCE, "test"),
                IntakeResult.class).job().id();
    }

    /** The item of a throughput answer for the minute {@code at} falls in. */
    static JsonNode minuteOf(JsonNode throughput, Instant at) {
        String minute = at.truncatedTo(java.time.temporal.ChronoUnit.MINUTES).toString();
        for (JsonNode item : throughput.get("items")) {
            if (Instant.parse(item.get("minute").asString()).toString().equals(minute)) {
                return item;
            }
        }
        throw new AssertionError("no minute " + minute + " in " + throughput);
    }

    static long sum(JsonNode throughput, String field) {
        long total = 0;
        for (JsonNode item : throughput.get("items")) {
            total += item.get(field).asLong();
        }
        return total;
    }

    @Test
    void throughputCountsJobsAndRecordsInTheMinuteTheirJobFinished() throws Exception {
        UUID two = ingest(HEADER + "TP-1,1,SKU,1,2026-12-01\nTP-2,1,SKU,1,2026-12-01\n");
        UUID three = ingest(HEADER + "TP-3,1,SKU,1,2026-12-01\nTP-4,1,SKU,1,2026-12-01\nTP-5,1,SKU,1,2026-12-01\n");
        awaitState(two, "COMPLETED");
        awaitState(three, "COMPLETED");
        // a rejected job and an intake failure in minutes of their own, a while ago
        jdbc.update(
                "INSERT INTO import_job (id, supplier, state, key, file_name, size, source, received_at, updated_at)"
                        + " VALUES (gen_random_uuid(), 'ACME', 'REJECTED', 'ACME:' || repeat('c', 64), 'old.csv', 1, 'test',"
                        + " now() - interval '20 minutes', now() - interval '20 minutes')");
        jdbc.update("INSERT INTO intake_failure (supplier, source, file_name, outcome, reason, occurred_at)"
                + " VALUES ('ACME', 'file-drop', 'x.txt', 'rejected', 'r', now() - interval '10 minutes')");
        Instant twoFinished = jdbc
                .queryForObject("SELECT updated_at FROM import_job WHERE id = ?", java.sql.Timestamp.class, two)
                .toInstant();
        Instant threeFinished = jdbc
                .queryForObject("SELECT updated_at FROM import_job WHERE id = ?", java.sql.Timestamp.class, three)
                .toInstant();
        Instant dbNow = jdbc.queryForObject("SELECT now()", java.sql.Timestamp.class).toInstant();

        JsonNode throughput = mapper.readTree(admin("GET", "/throughput").body());

        assertThat(throughput.get("minutes").asInt()).isEqualTo(60);
        assertThat(throughput.get("items")).hasSize(60);
        assertThat(sum(throughput, "received")).isEqualTo(3);
        assertThat(sum(throughput, "completed")).isEqualTo(2);
        assertThat(sum(throughput, "accepted")).isEqualTo(5);
        assertThat(sum(throughput, "quarantined")).isZero();
        if (twoFinished.truncatedTo(java.time.temporal.ChronoUnit.MINUTES)
                .equals(threeFinished.truncatedTo(java.time.temporal.ChronoUnit.MINUTES))) {
            assertThat(minuteOf(throughput, twoFinished).get("completed").asInt()).isEqualTo(2);
            assertThat(minuteOf(throughput, twoFinished).get("accepted").asInt()).isEqualTo(5);
        } else {
            assertThat(minuteOf(throughput, twoFinished).get("accepted").asInt()).isEqualTo(2);
            assertThat(minuteOf(throughput, threeFinished).get("accepted").asInt()).isEqualTo(3);
        }
        JsonNode rejected = minuteOf(throughput, dbNow.minusSeconds(20 * 60));
        assertThat(rejected.get("rejected").asInt()).isEqualTo(1);
        assertThat(rejected.get("received").asInt()).isEqualTo(1);
        assertThat(rejected.get("completed").asInt()).isZero();
        assertThat(minuteOf(throughput, dbNow.minusSeconds(10 * 60)).get("intakeFailures").asInt()).isEqualTo(1);
        assertThat(sum(throughput, "intakeFailures")).isEqualTo(1);
        // the rejected job is older than five minutes: out of a shorter window
        JsonNode five = mapper.readTree(admin("GET", "/throughput?minutes=5").body());
        assertThat(five.get("items")).hasSize(5);
        assertThat(sum(five, "rejected")).isZero();

        assertProblem(admin("GET", "/throughput?minutes=0"), 400, "minutes must be between 1 and 1440");
        assertProblem(admin("GET", "/throughput?minutes=1441"), 400, "minutes must be between 1 and 1440");
        assertProblem(admin("GET", "/throughput?minutes=hour"), 400, "minutes 'hour' is not a whole number");
    }

    @Test
    void theJobListIsSearchedByIdFileNameAndKeyPrefix() throws Exception {
        UUID percent = ingestNamed("sale 50%_off.csv", HEADER + "S-1,1,SKU,1,2026-12-01\n");
        UUID lookalike = ingestNamed("sale 50xyoff.csv", HEADER + "S-2,1,SKU,1,2026-12-01\n");
        UUID other = ingestNamed("stock.csv", HEADER + "S-3,1,SKU,1,2026-12-01\n");

        // % and _ are matched as themselves, not as wildcards; case does not matter
        JsonNode byName = mapper.readTree(admin("GET", "/jobs?q=" + enc("50%_OFF")).body());
        assertThat(ids(byName)).containsExactly(percent.toString());
        assertThat(byName.get("more").asBoolean()).isFalse();
        assertThat(ids(mapper.readTree(admin("GET", "/jobs?q=sale").body())))
                .containsExactlyInAnyOrder(percent.toString(), lookalike.toString());

        JsonNode byId = mapper.readTree(admin("GET", "/jobs?q=" + other).body());
        assertThat(ids(byId)).containsExactly(other.toString());

        String key = jdbc.queryForObject("SELECT key FROM import_job WHERE id = ?", String.class, lookalike);
        JsonNode byKey = mapper.readTree(admin("GET", "/jobs?q=" + enc(key.substring(0, 16))).body());
        assertThat(ids(byKey)).contains(lookalike.toString());
        assertThat(ids(mapper.readTree(admin("GET", "/jobs?q=" + enc(key)).body())))
                .containsExactly(lookalike.toString());
        // a key matches from its start only
        assertThat(mapper.readTree(admin("GET", "/jobs?q=" + key.substring(10)).body()).get("items")).isEmpty();
        // the other filters and the paging still apply
        assertThat(mapper.readTree(admin("GET", "/jobs?q=sale&supplier=GLOBEX").body()).get("items")).isEmpty();
        assertThat(ids(mapper.readTree(admin("GET", "/jobs?q=sale&supplier=ACME").body())))
                .containsExactlyInAnyOrder(percent.toString(), lookalike.toString());
        JsonNode firstOfTwo = mapper.readTree(admin("GET", "/jobs?q=sale&size=1&page=1").body());
        assertThat(firstOfTwo.get("total").asInt()).isEqualTo(2);
        assertThat(firstOfTwo.get("items")).hasSize(1);

        assertProblem(admin("GET", "/jobs?q=" + "x".repeat(201)), 400, "q must be at most 200 characters");
        // PostgreSQL's text cannot hold a NUL: refused by name, not a failed statement
        assertProblem(admin("GET", "/jobs?q=a%00b"), 400, "q must not contain a NUL character");
    }

    /** A NUL in a list's text filter is a 400 naming it, never a statement PostgreSQL refuses. */
    @Test
    void aControlCharacterInAFilterIsA400() throws Exception {
        assertProblem(admin("GET", "/jobs?supplier=AC%00ME"), 400, "supplier holds a control character");
        assertProblem(admin("GET", "/failed-jobs?supplier=AC%00ME"), 400, "supplier holds a control character");
        assertProblem(admin("GET", "/intake-failures?source=fi%00le"), 400, "source holds a control character");
        assertProblem(admin("GET", "/intake-failures?supplier=AC%00ME"), 400, "supplier holds a control character");
        assertProblem(get("/api/v1/jobs?supplier=AC%00ME", ADMIN_KEY), 400, "supplier holds a control character");
    }

    static String enc(String s) {
        return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static java.util.List<String> ids(JsonNode page) {
        java.util.List<String> ids = new java.util.ArrayList<>();
        page.get("items").forEach(item -> ids.add(item.get("id").asString()));
        return ids;
    }
}
