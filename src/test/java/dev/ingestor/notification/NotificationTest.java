package dev.ingestor.notification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.intake.IntakeResult;
import dev.ingestor.operations.RelayStallWatch;
import dev.ingestor.outbox.DeadLetterWriter;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.WebhookReceiver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Webhook notifications end to end: the facts they report, written by the real pipeline, delivered to a real
 * HTTP receiver, signed with the configured secret, retried with the same event id, given up when the receiver
 * stays down; a supplier's own webhook gets its events as well; a stalled Kafka relay is told once per episode.
 */
@Timeout(120)
class NotificationTest extends IngestorTestSupport {

    private static final WebhookReceiver RECEIVER = WEBHOOK;
    private static final String SECRET = WEBHOOK_SECRET;
    private static final String GLOBEX_SECRET = GLOBEX_WEBHOOK_SECRET;
    private static final String HEADER = "source_id,source_version,sku,quantity,delivery_date\n";

    @Autowired
    private ObjectMapper json;
    @Autowired
    private RelayStallWatch relayStallWatch;
    @Autowired
    private dev.ingestor.notification.NotificationDelivery delivery;
    @Autowired
    private dev.ingestor.notification.NotificationWriter notifications;
    @Autowired
    private org.springframework.transaction.PlatformTransactionManager transactionManager;

    @BeforeEach
    void freshReceiver() {
        RECEIVER.reset();
    }

    @AfterEach
    void removeFault() {
        removeValidationFault("notification_fault");
    }

    @Test
    void aJobThatEndsFailedIsDeliveredOnceSignedAndNamesTheJob() throws Exception {
        failEveryValidation("notification_fault", "");
        UUID job = producer.requestBodyAndHeaders("direct:intake",
                (HEADER + "N-1,1,SKU,1,2026-12-01\n").getBytes(StandardCharsets.UTF_8),
                Map.of(IntakeHeaders.SUPPLIER, "ACME", IntakeHeaders.FILE_NAME, "fails.csv", IntakeHeaders.SOURCE,
                        "test"),
                IntakeResult.class).job().id();

        await().atMost(Duration.ofSeconds(30)).until(() -> RECEIVER.received("/hook", "job.failed").size() == 1
                && RECEIVER.received("/hook", "dead_letter.created").size() == 1);
        WebhookReceiver.Received failed = RECEIVER.received("/hook", "job.failed").get(0);
        assertThat(failed.contentType()).isEqualTo("application/json");
        assertSigned(failed, SECRET);
        JsonNode body = json.readTree(failed.body());
        assertThat(body.path("type").asString()).isEqualTo("job.failed");
        assertThat(body.path("event_id").asString()).isEqualTo(failed.eventId());
        assertThat(body.path("supplier").asString()).isEqualTo("ACME");
        assertThat(body.path("data").path("job_id").asString()).isEqualTo(job.toString());
        assertThat(body.path("data").path("error").asString()).contains("deadlock detected (injected)")
                .startsWith("validation failed (dead letter "
                        + jdbc.queryForObject("SELECT id FROM dead_letter", Long.class) + "): ");

        WebhookReceiver.Received letter = RECEIVER.received("/hook", "dead_letter.created").get(0);
        assertSigned(letter, SECRET);
        assertThat(json.readTree(letter.body()).path("data").path("stage").asString()).isEqualTo("validation");

        // marked delivered once the sender has read the receiver's answer, which a busy machine may hold back
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(jdbc.queryForObject(
                "SELECT count(*) FROM notification WHERE delivered_at IS NULL", Long.class)).isZero());
        Thread.sleep(500); // nothing more arrives: delivered means sent once
        assertThat(RECEIVER.received("/hook", "job.failed")).hasSize(1);
        assertThat(RECEIVER.received("/globex")).as("ACME's events are not GLOBEX's").isEmpty();
    }

    @Test
    void aReceiverThatFailsTwiceGetsThreeAttemptsWithTheSameEventIdAndTheNotificationIsDelivered() throws Exception {
        RECEIVER.answer("/hook", 500, 500);
        drop("ACME", "bad|name.csv", "x".getBytes(StandardCharsets.UTF_8));

        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM notification WHERE delivered_at IS NOT NULL", Long.class) == 1);
        List<WebhookReceiver.Received> attempts = RECEIVER.received("/hook", "intake.rejected");
        assertThat(attempts).hasSize(3);
        assertThat(attempts).extracting(WebhookReceiver.Received::eventId).containsOnly(attempts.get(0).eventId());
        assertThat(attempts).extracting(WebhookReceiver.Received::text).containsOnly(attempts.get(0).text());
        assertSigned(attempts.get(2), SECRET);
        Map<String, Object> row = jdbc.queryForMap("SELECT * FROM notification");
        assertThat(row).containsEntry("attempts", 3).containsEntry("event_id",
                UUID.fromString(attempts.get(0).eventId()));
        assertThat(row.get("gave_up_at")).isNull();
        assertThat(json.readTree(attempts.get(0).body()).path("data").path("file_name").asString())
                .isEqualTo("bad|name.csv");
    }

    @Test
    void aReceiverThatStaysDownIsRetriedAndGivenUpAfterTheLastAttempt() throws Exception {
        RECEIVER.answer("/hook", 503, 503, 503);
        jdbc.update(
                "INSERT INTO notification (event_id, type, destination, payload) VALUES (?, 'job.failed', '*', '{}')",
                UUID.randomUUID());

        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM notification WHERE gave_up_at IS NOT NULL", Long.class) == 1);
        Map<String, Object> row = jdbc.queryForMap("SELECT * FROM notification");
        assertThat(row).containsEntry("attempts", 3);
        assertThat(row.get("delivered_at")).isNull();
        assertThat((String) row.get("last_error")).isNotBlank().doesNotContain(SECRET);
        assertThat(get("/actuator/prometheus").body())
                .containsPattern("ingestor_notifications_total\\{outcome=\"gave_up\",type=\"job.failed\"\\} [1-9]")
                .containsPattern("ingestor_notifications_total\\{outcome=\"retried\",type=\"job.failed\"\\} [1-9]");
    }

    @Test
    void aSupplierWithAWebhookOfItsOwnGetsItsEventsSignedWithItsSecretAndTheInstallationGetsThemToo() throws Exception {
        drop("GLOBEX", "bad|name.json", "{}".getBytes(StandardCharsets.UTF_8));
        drop("GLOBEX", "bad|name.json.done", new byte[0]); // GLOBEX's files are taken once their done file is there

        await().atMost(Duration.ofSeconds(30)).until(() -> RECEIVER.received("/globex", "intake.rejected").size() == 1
                && RECEIVER.received("/hook", "intake.rejected").size() == 1);
        WebhookReceiver.Received own = RECEIVER.received("/globex", "intake.rejected").get(0);
        WebhookReceiver.Received installation = RECEIVER.received("/hook", "intake.rejected").get(0);
        assertSigned(own, GLOBEX_SECRET);
        assertSigned(installation, SECRET);
        assertThat(own.eventId()).as("one event, two receivers").isEqualTo(installation.eventId());
        assertThat(json.readTree(own.body()).path("supplier").asString()).isEqualTo("GLOBEX");
    }

    @Test
    void aRefusedHttpPushAndAStrayFileAreToldLikeARefusedDrop() throws Exception {
        java.net.http.HttpResponse<String> refused = post("/api/v1/suppliers/ACME/files", ACME_KEY,
                "application/octet-stream",
                (HEADER + "S1,1,SKU,1,2026-01-01\n").getBytes(StandardCharsets.UTF_8), "X-File-Name", "a|b.csv");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
        drop("nobody", "lost.csv", HEADER.getBytes(StandardCharsets.UTF_8));

        await().atMost(Duration.ofSeconds(30)).until(() -> RECEIVER.received("/hook", "intake.rejected").size() == 2);
        List<JsonNode> told = new ArrayList<>();
        for (WebhookReceiver.Received request : RECEIVER.received("/hook", "intake.rejected")) {
            assertSigned(request, SECRET);
            told.add(json.readTree(request.body()));
        }
        assertThat(told).extracting(event -> event.path("data").path("source").asString())
                .containsExactlyInAnyOrder("http", "stray");
        assertThat(told).extracting(event -> event.path("data").path("file_name").asString())
                .containsExactlyInAnyOrder("a|b.csv", "lost.csv");
        // each notice names the row an operator finds in the intake-failure list
        for (JsonNode event : told) {
            assertThat(jdbc.queryForObject("SELECT file_name FROM intake_failure WHERE id = ?", String.class,
                    event.path("data").path("intake_failure_id").asLong()))
                    .isEqualTo(event.path("data").path("file_name").asString());
        }
    }

    /** With coalescing off (a window of 0), each intake notice still carries its count, 1, and its times. */
    @Test
    void anIntakeNoticeNotCoalescedCarriesItsCountAndTimes(@Autowired NotificationSettings settings) throws Exception {
        Duration window = settings.getCoalesceWindow();
        settings.setCoalesceWindow(Duration.ZERO);
        try {
            for (int i = 0; i < 2; i++) {
                java.net.http.HttpResponse<String> refused = post("/api/v1/suppliers/ACME/files", ACME_KEY,
                        "application/octet-stream",
                        (HEADER + "W1,1,SKU,1,2026-01-01\n").getBytes(StandardCharsets.UTF_8),
                        "X-File-Name", "window|zero.csv");
                assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
            }
        } finally {
            settings.setCoalesceWindow(window);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> RECEIVER.received("/hook", "intake.rejected").size() == 2);
        for (WebhookReceiver.Received request : RECEIVER.received("/hook", "intake.rejected")) {
            JsonNode data = json.readTree(request.body()).path("data");
            assertThat(data.path("count").asInt()).as(data.toString()).isEqualTo(1);
            assertThat(data.path("first_occurred_at").asString()).isEqualTo(data.path("last_occurred_at").asString())
                    .isEqualTo(json.readTree(request.body()).path("occurred_at").asString());
        }
    }

    // slow tier: a read timeout waited out
    @SlowTest
    @Test
    void aReceiverThatTricklesItsAnswerIsLetGoAtTheDeadlineAndHoldsBackNoOneElse() throws Exception {
        // GLOBEX's own webhook answers with headers at once and then a body that never ends
        RECEIVER.answer("/globex", WebhookReceiver.TRICKLE);
        drop("GLOBEX", "bad|trickle.json", "{}".getBytes(StandardCharsets.UTF_8));
        drop("GLOBEX", "bad|trickle.json.done", new byte[0]);

        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM notification WHERE destination = '*' AND delivered_at IS NOT NULL",
                Long.class) == 1);
        // connect 1 s + read 2 s: the trickling answer is let go at its deadline, not when the receiver stops; its
        // status line said 200, so the receiver has taken the notice: delivered by that one attempt, never sent again
        await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
                "SELECT delivered_at IS NOT NULL FROM notification WHERE destination = 'GLOBEX'", Boolean.class));
        assertThat(jdbc.queryForObject("SELECT attempts FROM notification WHERE destination = 'GLOBEX'", Integer.class))
                .isEqualTo(1);
        assertThat(RECEIVER.received("/globex")).hasSize(1);
    }

    /**
     * An attempt whose outcome comes after its lease ended, when another attempt has taken the row meanwhile (here:
     * the row's lease moved on while the late outcome waits for the row), writes nothing: it would make the row due
     * under the other attempt's POST, or give up a row the other delivered.
     */
    @Test
    void anOutcomeThatComesAfterItsLeaseWasTakenOverWritesNothing() throws Exception {
        RECEIVER.answer("/globex", WebhookReceiver.SLOW);
        drop("GLOBEX", "bad|late.json", "{}".getBytes(StandardCharsets.UTF_8));
        drop("GLOBEX", "bad|late.json.done", new byte[0]);
        await().atMost(Duration.ofSeconds(30)).until(() -> !RECEIVER.received("/globex").isEmpty());
        java.time.OffsetDateTime takenOver = new TransactionTemplate(transactionManager).execute(tx -> {
            // another attempt's lease, while this attempt's outcome (no answer by its deadline, 3 s) waits for the row
            java.time.OffsetDateTime lease = jdbc.queryForObject("UPDATE notification SET next_attempt_at = now()"
                    + " + interval '10 minutes' WHERE destination = 'GLOBEX' RETURNING next_attempt_at",
                    java.time.OffsetDateTime.class);
            sleep(5_000);
            return lease;
        });
        await().pollDelay(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                jdbc.queryForMap("SELECT attempts, last_error, next_attempt_at, gave_up_at FROM notification"
                        + " WHERE destination = 'GLOBEX'"))
                .containsEntry("attempts", 0).containsEntry("last_error", null).containsEntry("gave_up_at", null)
                .satisfies(row -> assertThat(((java.sql.Timestamp) row.get("next_attempt_at")).toInstant())
                        .isEqualTo(takenOver.toInstant())));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis); // on purpose: the late outcome waits for the row meanwhile
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aSuppliersOwnWebhookIsNotToldInternalFailureText() throws Exception {
        DeadLetterWriter.Failure failure = new DeadLetterWriter.Failure(
                null, "GLOBEX", "GLOBEX:" + "0".repeat(64), "processing", "org.postgresql.util.PSQLException",
                "ERROR: relation \"item\" does not exist", 3);
        TransactionTemplate tx = new TransactionTemplate(transactionManager);
        tx.executeWithoutResult(status -> notifications.deadLetter(new DeadLetterWriter.Recorded(42L, failure)));

        await().atMost(Duration.ofSeconds(20))
                .until(() -> RECEIVER.received("/globex", "dead_letter.created").size() == 1
                        && RECEIVER.received("/hook", "dead_letter.created").size() == 1);
        JsonNode own = json.readTree(RECEIVER.received("/globex", "dead_letter.created").get(0).body()).path("data");
        JsonNode operators = json.readTree(RECEIVER.received("/hook", "dead_letter.created").get(0).body())
                .path("data");
        assertThat(operators.path("exception").asString()).isEqualTo("org.postgresql.util.PSQLException");
        assertThat(operators.path("message").asString()).contains("relation");
        assertThat(own.has("exception")).isFalse();
        assertThat(own.has("message")).isFalse();
        assertThat(own.path("stage").asString()).isEqualTo("processing");
        assertThat(own.path("dead_letter_id").asLong()).isEqualTo(42L);
    }

    /** An intake failure's reason is ours (a disk, a database): a supplier's own webhook is told only it failed. */
    @Test
    void aSuppliersOwnWebhookIsNotToldTheReasonOfAnIntakeFailure() throws Exception {
        String reason = "org.springframework.dao.DataAccessResourceFailureException:"
                + " java.nio.file.FileSystemException: /var/lib/ingestor/raw: No space left on device";
        new TransactionTemplate(transactionManager).executeWithoutResult(
                status -> notifications.intakeFailure(7L, "GLOBEX", "file-drop", "stock.json", "failed", reason));

        await().atMost(Duration.ofSeconds(20))
                .until(() -> RECEIVER.received("/globex", "intake.failed").size() == 1
                        && RECEIVER.received("/hook", "intake.failed").size() == 1);
        JsonNode own = json.readTree(RECEIVER.received("/globex", "intake.failed").get(0).body()).path("data");
        JsonNode operators = json.readTree(RECEIVER.received("/hook", "intake.failed").get(0).body()).path("data");
        assertThat(operators.path("reason").asString()).isEqualTo(reason);
        assertThat(own.path("reason").asString()).isEqualTo(dev.ingestor.outbox.FailedJobError.UNNAMED);
        assertThat(own.path("file_name").asString()).isEqualTo("stock.json");
        assertThat(own.path("intake_failure_id").asLong()).isEqualTo(7L);
    }

    // slow tier: 300 pushes and their coalescing windows
    @SlowTest
    @Test
    void threeHundredRefusedPushesOfOneKindAreAFewNoticesAndRowsThatCarryTheCount() throws Exception {
        byte[] advice = (HEADER + "S1,1,SKU,1,2026-01-01\n").getBytes(StandardCharsets.UTF_8);
        long start = System.nanoTime();
        for (int i = 0; i < 300; i++) {
            java.net.http.HttpResponse<String> refused = post("/api/v1/suppliers/ACME/files", ACME_KEY,
                    "application/octet-stream", advice, "X-File-Name", "loop|" + i + ".csv");
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        // the first notice of a kind goes at once, then at most one per coalesce-window (3 s here), the last one a
        // window after the one before it: so at most this many for the time the pushes took
        long most = 2 + (long) Math.ceil(seconds / 3);

        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM notification WHERE delivered_at IS NULL", Long.class) == 0);
        Map<String, JsonNode> notices = new java.util.LinkedHashMap<>();
        for (WebhookReceiver.Received request : RECEIVER.received("/hook", "intake.rejected")) {
            assertSigned(request, SECRET);
            notices.put(request.eventId(), json.readTree(request.body()));
        }
        assertThat(notices.size()).as("notices for 300 refusals taking %.1f s", seconds).isBetween(1,
                (int) Math.min(most, 12));
        assertThat(notices.values().stream().mapToLong(notice -> notice.path("data").path("count").asLong()).sum())
                .as("every refusal is counted once, in some notice").isEqualTo(300);
        for (JsonNode notice : notices.values()) {
            JsonNode data = notice.path("data");
            assertThat(data.path("count").asInt()).isPositive();
            assertThat(data.path("reason").asString()).contains("the file name contains '|'");
            java.time.Instant first = java.time.Instant.parse(data.path("first_occurred_at").asString());
            java.time.Instant last = java.time.Instant.parse(data.path("last_occurred_at").asString());
            assertThat(first).isBeforeOrEqualTo(last);
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM notification WHERE delivered_at IS NULL", Long.class))
                .isZero();

        // the intake-failure list counts the same way: a row per kind and window, the count on the row
        Map<String, Object> rows = jdbc
                .queryForMap("SELECT count(*) AS n, sum(occurrences) AS arrivals FROM intake_failure");
        assertThat(((Number) rows.get("arrivals")).longValue()).isEqualTo(300);
        assertThat(((Number) rows.get("n")).longValue()).isBetween(1L, Math.min(most, 12));
        JsonNode listed = json.readTree(get("/api/v1/admin/intake-failures?supplier=ACME").body());
        long listedCount = 0;
        for (JsonNode item : listed.get("items")) {
            listedCount += item.get("count").asLong();
            assertThat(item.get("lastOccurredAt").asString()).isNotBlank();
        }
        assertThat(listedCount).isEqualTo(300);
    }

    @Autowired
    private dev.ingestor.intake.IntakeFailureLog intakeFailures;

    @Test
    void refusalsOfOneKindRecordedAtOnceFromManyThreadsMeetInOneRowAndOneNotice() throws Exception {
        // as several instances recording the same refusal at the same moment: each is counted once, none is lost
        ExecutorService eight = Executors.newFixedThreadPool(8);
        try {
            List<Future<Long>> recorded = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                int n = i;
                recorded.add(
                        eight.submit(() -> intakeFailures.record(new dev.ingestor.intake.IntakeFailureStore.Arrival(
                                "ACME", "http", "race|" + n + ".csv", null, "rejected", "the file name contains '|'",
                                null))));
            }
            for (Future<Long> row : recorded) {
                assertThat(row.get()).isPositive();
            }
        } finally {
            eight.shutdown();
        }
        Map<String, Object> rows = jdbc
                .queryForMap("SELECT count(*) AS n, sum(occurrences) AS arrivals FROM intake_failure");
        assertThat(((Number) rows.get("arrivals")).longValue()).isEqualTo(200);
        assertThat(((Number) rows.get("n")).longValue()).as("one row per 3 s window").isBetween(1L, 2L);
        Map<String, Object> notices = jdbc
                .queryForMap("SELECT count(*) AS n, sum(occurrences) AS facts FROM notification"
                        + " WHERE destination = '*'");
        assertThat(((Number) notices.get("facts")).longValue()).isEqualTo(200);
        // the first, sent at once, and the open one counting the rest (a third when the burst outlasted a window)
        assertThat(((Number) notices.get("n")).longValue()).isBetween(1L, 3L);
    }

    // slow tier: a receiver that answers late
    @SlowTest
    @Test
    void aReceiverThatAnswersAfterThirtySecondsDelaysNoOtherReceiversNotice() throws Exception {
        // GLOBEX's own webhook answers 30 s late, far past connect 1 s + read 2 s
        RECEIVER.answer("/globex", WebhookReceiver.SLOW);
        TransactionTemplate tx = new TransactionTemplate(transactionManager);
        UUID globexJob = UUID.randomUUID();
        tx.executeWithoutResult(status -> notifications.jobFailed(globexJob, "GLOBEX", "GLOBEX:" + "1".repeat(64),
                dev.ingestor.outbox.FailedJobError.of("processing", 1, "boom")));
        await().atMost(Duration.ofSeconds(10)).until(() -> RECEIVER.received("/globex", "job.failed").size() == 1);

        // while GLOBEX's webhook keeps its POST waiting, another notice is written: it goes out at once
        long written = System.nanoTime();
        UUID acmeJob = UUID.randomUUID();
        tx.executeWithoutResult(status -> notifications.jobFailed(acmeJob, "ACME", "ACME:" + "2".repeat(64),
                dev.ingestor.outbox.FailedJobError.of("processing", 2, "boom")));
        await().atMost(Duration.ofSeconds(10)).until(() -> told("/hook", acmeJob) != null);
        Duration waited = Duration.ofNanos(told("/hook", acmeJob).nanos() - written);
        assertThat(waited).as("the installation's notice waited for GLOBEX's slow webhook")
                .isLessThan(Duration.ofSeconds(1));
        assertThat(RECEIVER.received("/globex", "job.failed")).as("GLOBEX's POST is still under way").hasSize(1);

        // the slow POST is let go at its deadline, and the next attempt, answered at once, delivers it
        await().atMost(Duration.ofSeconds(20)).until(() -> jdbc.queryForObject(
                "SELECT delivered_at IS NOT NULL FROM notification WHERE destination = 'GLOBEX'", Boolean.class));
        assertThat(jdbc.queryForObject("SELECT attempts FROM notification WHERE destination = 'GLOBEX'", Integer.class))
                .isEqualTo(2);
    }

    /** The job.failed request {@code path} got for {@code job}, or null. */
    private WebhookReceiver.Received told(String path, UUID job) throws Exception {
        for (WebhookReceiver.Received request : RECEIVER.received(path, "job.failed")) {
            if (json.readTree(request.body()).path("data").path("job_id").asString().equals(job.toString())) {
                return request;
            }
        }
        return null;
    }

    @Test
    void aSuppliersOwnWebhookIsToldOfAFailedJobOnlyTheStageAndTheDeadLetter() throws Exception {
        UUID job = UUID.randomUUID();
        String error = dev.ingestor.outbox.FailedJobError.of("processing", 42,
                "org.postgresql.util.PSQLException: ERROR: relation \"item\" does not exist");
        new org.springframework.transaction.support.TransactionTemplate(transactionManager).executeWithoutResult(
                status -> notifications.jobFailed(job, "GLOBEX", "GLOBEX:" + "3".repeat(64), error));

        await().atMost(Duration.ofSeconds(20)).until(() -> told("/globex", job) != null && told("/hook", job) != null);
        JsonNode own = json.readTree(told("/globex", job).body()).path("data");
        JsonNode operators = json.readTree(told("/hook", job).body()).path("data");
        assertThat(own.path("error").asString()).isEqualTo("processing failed (dead letter 42)");
        assertThat(operators.path("error").asString()).isEqualTo(error);
        assertThat(own.path("job_id").asString()).isEqualTo(job.toString());
    }

    @Test
    void aNotificationOfAWebhookNoLongerConfiguredIsGivenUpOnceOldAndNeverSent(
            @Autowired io.micrometer.core.instrument.MeterRegistry registry) {
        io.micrometer.core.instrument.Counter givenUp = registry.get("ingestor.notifications")
                .tags("type", "job.failed", "outcome", "gave_up").counter();
        double before = givenUp.count();
        jdbc.update("INSERT INTO notification (event_id, type, destination, payload, created_at) VALUES"
                + " (?, 'job.failed', 'REMOVED', '{}', now() - interval '8 days'), (?, 'job.failed', 'REMOVED', '{}', now())",
                UUID.randomUUID(), UUID.randomUUID());

        delivery.forgetSettled();

        assertThat(jdbc.queryForList("SELECT gave_up_at IS NOT NULL FROM notification WHERE destination = 'REMOVED'"
                + " ORDER BY created_at", Boolean.class)).as("the old one, then the new one")
                .containsExactly(true, false);
        assertThat(jdbc.queryForObject("SELECT attempts FROM notification WHERE gave_up_at IS NOT NULL", Integer.class))
                .isZero();
        // counted, as the alert on notifications given up watches
        assertThat(givenUp.count() - before).isEqualTo(1);
    }

    @Test
    void anOpenNoticeGivenUpForItsRemovedWebhookCountsNoMore() {
        jdbc.update(
                "INSERT INTO notification (event_id, type, destination, payload, created_at, coalesce_key, coalescing)"
                        + " VALUES (?, 'intake.rejected', 'REMOVED', '{}', now() - interval '8 days', 'kind', true)",
                UUID.randomUUID());

        delivery.forgetSettled();

        // a webhook configured again under that name starts a notice of its own instead of counting into this one
        assertThat(jdbc.queryForMap("SELECT gave_up_at IS NOT NULL AS given_up, coalescing FROM notification"))
                .containsEntry("given_up", true).containsEntry("coalescing", false);
    }

    @Test
    void aStalledRelayIsToldOncePerEpisodeAcrossInstances() throws Exception {
        // housekeeping would add a relay for the topic of the event that waits, at a moment of its own
        withRouteStopped("housekeeping", this::aStalledRelayIsToldOncePerEpisode);
    }

    private void aStalledRelayIsToldOncePerEpisode() throws Exception {
        // a topic no relay publishes: its event stays unpublished, ten minutes old
        jdbc.update("INSERT INTO outbox (event_id, topic, event_key, payload, created_at)"
                + " VALUES (?, 'nobody.relays', 'k', '{}', now() - interval '10 minutes')", UUID.randomUUID());
        // two instances checking at once, and again: one notification
        ExecutorService two = Executors.newFixedThreadPool(2);
        try {
            List<Future<Boolean>> checks = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                checks.add(two.submit((Callable<Boolean>) relayStallWatch::check));
            }
            for (Future<Boolean> check : checks) {
                check.get();
            }
        } finally {
            two.shutdown();
        }
        relayStallWatch.check();
        assertThat(stallNotifications()).isEqualTo(1);

        // the backlog drops just under the limit (1 minute here) and goes over it again: still the same episode
        jdbc.update("UPDATE outbox SET created_at = now() - interval '40 seconds'");
        relayStallWatch.check();
        jdbc.update("UPDATE outbox SET created_at = now() - interval '10 minutes'");
        relayStallWatch.check();
        assertThat(stallNotifications()).as("a relay hovering around the limit is one episode").isEqualTo(1);

        // the relay catches up: the episode ends, and nothing new is written
        jdbc.update("DELETE FROM outbox");
        relayStallWatch.check();
        assertThat(stallNotifications()).isEqualTo(1);

        // a new stall is a new episode
        jdbc.update("INSERT INTO outbox (event_id, topic, event_key, payload, created_at)"
                + " VALUES (?, 'nobody.relays', 'k', '{}', now() - interval '10 minutes')", UUID.randomUUID());
        relayStallWatch.check();
        relayStallWatch.check();
        assertThat(stallNotifications()).isEqualTo(2);
        await().atMost(Duration.ofSeconds(30)).until(() -> RECEIVER.received("/hook", "relay.stalled").size() == 2);
        assertSigned(RECEIVER.received("/hook", "relay.stalled").get(0), SECRET);
    }

    @Test
    void settledNotificationsAreForgottenAfterKeepSettledAndDueOnesNever() throws Exception {
        // the app's notification-retention route (its first run 10 s after start) would forget these rows at a
        // moment of its own, and the call below would count fewer than it forgot
        withRouteStopped("notification-retention", () -> {
            String insert = "INSERT INTO notification (event_id, type, destination, payload, delivered_at, gave_up_at,"
                    + " next_attempt_at) VALUES (?, 'job.failed', '*', '{}', %s, %s, now() + interval '1 day')";
            jdbc.update(insert.formatted("now() - interval '8 days'", "NULL"), UUID.randomUUID());
            jdbc.update(insert.formatted("NULL", "now() - interval '8 days'"), UUID.randomUUID());
            UUID recent = UUID.randomUUID();
            jdbc.update(insert.formatted("now() - interval '6 days'", "NULL"), recent);
            UUID due = UUID.randomUUID();
            jdbc.update(insert.formatted("NULL", "NULL"), due);
            jdbc.update("UPDATE notification SET created_at = now() - interval '30 days'");

            assertThat(delivery.forgetSettled()).isEqualTo(2);
            assertThat(jdbc.queryForList("SELECT event_id FROM notification", UUID.class))
                    .containsExactlyInAnyOrder(recent, due);
        });
    }

    private long stallNotifications() {
        return jdbc.queryForObject("SELECT count(*) FROM notification WHERE type = 'relay.stalled'", Long.class);
    }

    /** Verifies the signature as a receiver does: HMAC-SHA256(secret, t + "." + body) over the bytes received. */
    private static void assertSigned(WebhookReceiver.Received request, String secret) throws Exception {
        assertThat(request.signature()).matches("t=\\d+,v1=[0-9a-f]{64}");
        String t = request.signature().substring(2, request.signature().indexOf(','));
        String v1 = request.signature().substring(request.signature().indexOf("v1=") + 3);
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        mac.update((t + ".").getBytes(StandardCharsets.US_ASCII));
        String expected = java.util.HexFormat.of().formatHex(mac.doFinal(request.body()));
        assertThat(v1).as("signature over the exact body").isEqualTo(expected);
        assertThat(Long.parseLong(t)).isCloseTo(System.currentTimeMillis() / 1000,
                org.assertj.core.data.Offset.offset(120L));
    }
}
