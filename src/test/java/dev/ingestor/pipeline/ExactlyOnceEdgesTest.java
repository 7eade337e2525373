package dev.ingestor.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.InstanceId;
import dev.ingestor.job.ImportJob;
import dev.ingestor.job.JobClaims;
import dev.ingestor.job.JobLifecycle;
import dev.ingestor.job.PipelineSettings;
import dev.ingestor.metrics.IngestorMetrics;
import dev.ingestor.outbox.DeadLetterWriter;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestKafka;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;
import tools.jackson.databind.JsonNode;

/**
 * The edges of exactly-once, on the real PostgreSQL and Kafka: one event id per effect, the version rule, a job
 * that keeps killing its workers, and an event Kafka refuses for good.
 */
class ExactlyOnceEdgesTest extends IngestorTestSupport {

    private static final String ITEMS_TOPIC = "ingestor.items";
    private static final String HEADER = "source_id,source_version,sku,quantity,delivery_date,note\n";

    @Autowired
    JobClaims claims;
    @Autowired
    JobLifecycle lifecycle;
    @Autowired
    PipelineSettings pipeline;
    @Autowired
    DeadLetterWriter deadLetterWriter;
    @Autowired
    PlatformTransactionManager transactionManager;
    @Autowired
    IngestorMetrics metrics;
    @Autowired
    dev.ingestor.job.DeadLetters deadLetters;

    private static boolean topicLimited;

    @AfterEach
    void undo() throws Exception {
        jdbc.execute("ALTER TABLE import_job DROP CONSTRAINT IF EXISTS hold_back");
        if (topicLimited) {
            topicLimited = false;
            try (Admin admin = kafkaAdmin()) {
                admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, ITEMS_TOPIC),
                        List.of(
                                new AlterConfigOp(new ConfigEntry("max.message.bytes", ""),
                                        AlterConfigOp.OpType.DELETE))))
                        .all().get();
            }
        }
    }

    // ---- one event id per effect

    // slow tier: several jobs one after the other
    @SlowTest
    @Test
    void anItemChangedAndChangedBackGetsAnEventIdPerEffectAndAResendKeepsThem() throws Exception {
        String id = "E-" + UUID.randomUUID();
        String a = item(id, null, 1, "A");
        String b = item(id, null, 2, "B");
        assertThat(outcome(a)).isEqualTo("ACCEPTED");
        assertThat(outcome(b)).isEqualTo("UPDATED");
        assertThat(outcome(a)).isEqualTo("UPDATED"); // back to A: a real change, not a replay
        assertThat(outcome(a)).isEqualTo("REPLAY"); // the same again: no effect, no event

        List<String> written = jdbc.queryForList(
                "SELECT event_id::text FROM outbox_all WHERE event_key = ? ORDER BY id",
                String.class, "ACME:" + id);
        assertThat(written).hasSize(3).doesNotHaveDuplicates();
        awaitPublished();
        List<ConsumerRecord<String, String>> sent = recordsOf(id, 3);
        assertThat(sent).extracting(r -> json(r.value()).get("event_id").asString()).containsExactlyElementsOf(written);
        assertThat(sent).extracting(r -> json(r.value()).get("revision").asLong()).containsExactly(1L, 2L, 3L);
        assertThat(sent).extracting(r -> json(r.value()).get("record").get("note").asString()).containsExactly("A", "B",
                "A");
        assertThat(sent).allSatisfy(
                r -> assertThat(new String(r.headers().lastHeader("event_id").value(), StandardCharsets.UTF_8))
                        .isEqualTo(json(r.value()).get("event_id").asString()));

        // the relay crashed after the send, before it recorded it: the events go again, with the same ids
        unpublish("event_key = ?", "ACME:" + id);
        awaitPublished();
        List<String> resent = recordsOf(id, 6).stream().map(r -> json(r.value()).get("event_id").asString()).toList();
        assertThat(resent).hasSize(6);
        assertThat(Set.copyOf(resent)).isEqualTo(Set.copyOf(written));
    }

    // slow tier: every redelivery of the policy waited out
    @SlowTest
    @Test
    void aDeadLetterEventCarriesAnIdOfItsOwnThatAResendKeeps() throws Exception {
        UUID job = poisonJob(pipeline.getMaxTakeovers());
        UUID other = poisonJob(pipeline.getMaxTakeovers());
        awaitState(job, "FAILED");
        awaitState(other, "FAILED");
        List<String> written = jdbc.queryForList(
                "SELECT event_id::text FROM outbox_all WHERE topic = 'ingestor.dead-letters'",
                String.class);
        assertThat(written).hasSize(2).doesNotHaveDuplicates();
        awaitPublished();
        unpublish("topic = 'ingestor.dead-letters'");
        awaitPublished();
        List<String> sent = awaitEvents("ingestor.dead-letters",
                e -> Set.of(job.toString(), other.toString()).contains(e.path("job_id").asString()), 4).stream()
                .map(e -> e.get("event_id").asString()).toList();
        assertThat(sent).hasSize(4);
        assertThat(Set.copyOf(sent)).isEqualTo(Set.copyOf(written));
    }

    // ---- the version rule

    @Test
    void anOlderVersionAfterAnUnversionedChangeIsAReplay() throws Exception {
        String id = "V-" + UUID.randomUUID();
        assertThat(outcome(item(id, 2L, 1, "v2"))).isEqualTo("ACCEPTED");
        assertThat(outcome(item(id, null, 1, "unversioned"))).isEqualTo("UPDATED");
        assertThat(jdbc.queryForObject("SELECT source_version FROM item WHERE source_id = ?", Long.class, id))
                .isEqualTo(2L);
        assertThat(outcome(item(id, 1L, 1, "v1"))).isEqualTo("REPLAY");
        assertThat(outcome(item(id, 2L, 1, "v2 again"))).isEqualTo("REPLAY");
        assertThat(outcome(item(id, 3L, 1, "v3"))).isEqualTo("UPDATED");
        assertThat(jdbc.queryForObject("SELECT record::jsonb->>'note' FROM item WHERE source_id = ?", String.class, id))
                .isEqualTo("v3");

        // an item that never had a version: the content decides, and a change records the version
        String plain = "U-" + UUID.randomUUID();
        assertThat(outcome(item(plain, null, 1, "plain"))).isEqualTo("ACCEPTED");
        assertThat(outcome(item(plain, 5L, 1, "v5"))).isEqualTo("UPDATED");
        assertThat(outcome(item(plain, 4L, 1, "v4"))).isEqualTo("REPLAY");
        assertThat(
                jdbc.queryForObject("SELECT record::jsonb->>'note' FROM item WHERE source_id = ?", String.class, plain))
                .isEqualTo("v5");
    }

    @Test
    void theVersionRuleHoldsThroughFilesToo() throws Exception {
        String id = "F-" + UUID.randomUUID();
        UUID v2 = ingest("v2.csv", HEADER + id + ",2,SKU,1,2026-12-01,v2\n");
        assertThat(awaitState(v2, "COMPLETED")).containsEntry("accepted", 1L);
        UUID change = ingest("change.csv", HEADER + id + ",,SKU,1,2026-12-01,unversioned\n");
        assertThat(awaitState(change, "COMPLETED")).containsEntry("updated", 1L);
        UUID v1 = ingest("v1.csv", HEADER + id + ",1,SKU,1,2026-12-01,v1\n");
        assertThat(awaitState(v1, "COMPLETED")).containsEntry("replayed", 1L).containsEntry("updated", 0L);
        assertThat(jdbc.queryForObject("SELECT record::jsonb->>'note' FROM item WHERE source_id = ?", String.class, id))
                .isEqualTo("unversioned");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_all WHERE event_key = ?", Long.class, "ACME:" + id))
                .isEqualTo(2);
    }

    // ---- a job that kills its workers

    @Test
    void aJobWhoseWorkersKeepDyingIsFailedWithADeadLetterAfterTheTakeoverLimit() throws Exception {
        int limit = pipeline.getMaxTakeovers();
        UUID poison = poisonJob(limit);
        UUID survivor = poisonJob(limit - 1);

        Map<String, Object> failed = awaitState(poison, "FAILED");
        assertThat((String) failed.get("error")).contains("ingestor.pipeline.max-takeovers=" + limit)
                .contains("taken over " + limit + " times");
        assertThat(failed).containsEntry("attempts", limit + 1).containsEntry("lease_owner", null);
        Map<String, Object> letter = jdbc.queryForMap("SELECT * FROM dead_letter WHERE job_id = ?", poison);
        assertThat(letter).containsEntry("stage", "validation").containsEntry("attempts", limit + 1)
                .containsEntry("exception", "dev.ingestor.job.TakeoverLimitException");
        assertThat((String) letter.get("message")).contains("ingestor.pipeline.max-takeovers");
        // the dead letter goes out like any other
        awaitPublished();
        assertThat(awaitEvents("ingestor.dead-letters", e -> poison.toString().equals(e.path("job_id").asString()), 1))
                .singleElement().satisfies(e -> assertThat(e.get("stage").asString()).isEqualTo("validation"));

        // under the limit the job is taken over as before, and finishes
        assertThat(awaitState(survivor, "COMPLETED")).containsEntry("accepted", 1L);
        // the poison job is not claimed again (on purpose: the workers poll, 100 ms apart, several times)
        Thread.sleep(500);
        assertThat(jdbc.queryForMap("SELECT state, attempts FROM import_job WHERE id = ?", poison))
                .containsEntry("state", "FAILED").containsEntry("attempts", limit + 1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM dead_letter WHERE job_id = ?", Long.class, poison))
                .isEqualTo(1);
    }

    @Test
    void everyTakeoverCountsAndTheOneAfterTheLimitFailsTheJob() throws Exception {
        // a worker of another instance claims and "dies" again and again
        JobClaims dying = workersOfAnotherInstance("dying-worker");
        UUID id = ingest("dies.csv", HEADER + "P-1,1,SKU,1,2026-12-01,x\n");
        int limit = pipeline.getMaxTakeovers();
        for (int takeover = 0; takeover <= limit; takeover++) {
            ImportJob claimed = await().atMost(Duration.ofSeconds(10)).until(dying::claimForValidation, j -> j != null);
            assertThat(claimed.id()).isEqualTo(id);
            assertThat(jdbc.queryForObject("SELECT takeovers FROM import_job WHERE id = ?", Integer.class, id))
                    .isEqualTo(takeover);
            jdbc.update("UPDATE import_job SET lease_until = now() - interval '1 second' WHERE id = ?", id); // it died
        }
        // one death too many: failed instead of taken over
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            dying.claimForValidation();
            return "FAILED".equals(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, id));
        });
        assertThat(jdbc.queryForObject("SELECT count(*) FROM dead_letter WHERE job_id = ?", Long.class, id))
                .isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT takeovers FROM import_job WHERE id = ?", Integer.class, id)).isZero();
    }

    /**
     * Two workers of one instance are told apart by their leases: a worker whose lease lapsed while it was stuck (a
     * hook that hangs, redelivery's back-off) and the sibling of the same instance that took the job over. The stale
     * one can neither renew, nor fail the job with a dead letter, nor hand it on; the one that holds it can.
     */
    @Test
    void siblingWorkersOfOneInstanceAreToldApartByTheirLeases() throws Exception {
        JobClaims workers = workersOfAnotherInstance("one-instance");
        UUID id = ingest("siblings.csv", HEADER + "S-1,1,SKU,1,2026-12-01,x\n");
        ImportJob stale = await().atMost(Duration.ofSeconds(10)).until(workers::claimForValidation, j -> j != null);
        assertThat(stale.id()).isEqualTo(id);
        jdbc.update("UPDATE import_job SET lease_until = now() - interval '1 second' WHERE id = ?", id); // it hangs
        ImportJob holder = await().atMost(Duration.ofSeconds(10)).until(workers::claimForValidation, j -> j != null);
        assertThat(holder.id()).isEqualTo(id);
        assertThat(stale.lease()).startsWith("one-instance/");
        assertThat(holder.lease()).startsWith("one-instance/").isNotEqualTo(stale.lease());

        assertThat(workers.renew(stale)).as("the stale worker renews").isFalse();
        org.apache.camel.Exchange failing = new org.apache.camel.support.DefaultExchange(camelContext);
        failing.getMessage().setBody(stale);
        failing.setProperty(org.apache.camel.Exchange.EXCEPTION_CAUGHT, new IllegalStateException("stuck"));
        failing.setProperty(dev.ingestor.job.DeadLetters.STAGE, "validation");
        deadLetters.record(failing);
        assertThat(lifecycle.validated(id, stale.lease(), 1, 0)).as("the stale worker hands it on").isFalse();
        assertThat(jdbc.queryForMap("SELECT state, lease_owner FROM import_job WHERE id = ?", id))
                .containsEntry("state", "VALIDATING").containsEntry("lease_owner", holder.lease());
        assertThat(jdbc.queryForObject("SELECT count(*) FROM dead_letter WHERE job_id = ?", Long.class, id))
                .as("the stale worker's dead letter").isZero();

        assertThat(workers.renew(holder)).isTrue();
        assertThat(lifecycle.validated(id, holder.lease(), 1, 0)).isTrue();
    }

    /**
     * An operator's action sends a job round again with the full takeover allowance, whatever the count was
     * when the job came to rest: otherwise one lapsed lease (a restart, a slow pause) would fail it at once.
     */
    @Test
    void aJobSentBackByAnOperatorStartsWithTheFullTakeoverAllowance() throws Exception {
        int limit = pipeline.getMaxTakeovers();
        UUID id = poisonJob(limit);
        awaitState(id, "FAILED");
        long letter = jdbc.queryForObject("SELECT id FROM dead_letter WHERE job_id = ?", Long.class, id);
        List<String> actions = List.of("/dead-letters/" + letter + "/replay", "/jobs/" + id + "/revalidate",
                "/jobs/" + id + "/reprocess");
        for (String action : actions) {
            // the count a job was left with, however it came to rest; this instance's workers wait until it is read
            jdbc.update("UPDATE import_job SET takeovers = ? WHERE id = ?", limit, id);
            holdBackWorkers();
            HttpResponse<String> response = http.send(
                    java.net.http.HttpRequest.newBuilder(uri("/api/v1/admin" + action))
                            .header("X-Api-Key", ADMIN_KEY).POST(java.net.http.HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).as(action + " " + response.body()).isEqualTo(202);
            assertThat(jdbc.queryForObject("SELECT takeovers FROM import_job WHERE id = ?", Integer.class, id))
                    .as(action).isZero();
            jdbc.execute("ALTER TABLE import_job DROP CONSTRAINT hold_back");
            awaitState(id, "COMPLETED");
        }
        jdbc.update("UPDATE import_job SET state = 'FAILED', takeovers = ? WHERE id = ?", limit, id);
        holdBackWorkers();
        HttpResponse<String> retried = http.send(
                java.net.http.HttpRequest.newBuilder(uri("/api/v1/admin/suppliers/ACME/retry-failed"))
                        .header("X-Api-Key", ADMIN_KEY).POST(java.net.http.HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(retried.statusCode()).as(retried.body()).isEqualTo(202);
        assertThat(jdbc.queryForObject("SELECT takeovers FROM import_job WHERE id = ?", Integer.class, id)).isZero();
        jdbc.execute("ALTER TABLE import_job DROP CONSTRAINT hold_back");
        awaitState(id, "COMPLETED");
    }

    /** This instance's workers cannot claim a job until the constraint is dropped (@AfterEach drops it too). */
    private void holdBackWorkers() {
        jdbc.execute("ALTER TABLE import_job ADD CONSTRAINT hold_back CHECK " + notLeasedBy(claims.owner())
                + " NOT VALID");
    }

    /** An instance that stops in order hands its jobs back: claimed again, they are not counted as takeovers. */
    @Test
    void anOrderlyShutdownHandsJobsBackWithoutATakeover() throws Exception {
        holdBackWorkers();
        IngestorProperties named = new IngestorProperties();
        named.setInstanceId("stopping-instance");
        JobClaims stopping = new JobClaims(jdbc, lifecycle, new InstanceId(named), pipeline, deadLetterWriter,
                transactionManager, metrics);
        UUID validating = ingest("stops-v.csv", HEADER + "Q-1,1,SKU,1,2026-12-01,x\n");
        UUID processing = ingest("stops-p.csv", HEADER + "Q-2,1,SKU,1,2026-12-01,x\n");
        jdbc.update("UPDATE import_job SET state = 'PROCESSING', total = 1 WHERE id = ?", processing);
        int limit = pipeline.getMaxTakeovers();
        for (int restart = 0; restart <= limit; restart++) {
            assertThat(await().atMost(Duration.ofSeconds(10)).until(stopping::claimForValidation, j -> j != null).id())
                    .isEqualTo(validating);
            assertThat(await().atMost(Duration.ofSeconds(10)).until(stopping::claimForProcessing, j -> j != null).id())
                    .isEqualTo(processing);
            assertThat(stopping.releaseOnShutdown()).isEqualTo(2);
            assertThat(
                    jdbc.queryForMap("SELECT state, lease_owner, takeovers FROM import_job WHERE id = ?", validating))
                    .containsEntry("state", "RECEIVED").containsEntry("lease_owner", null)
                    .containsEntry("takeovers", 0);
            assertThat(
                    jdbc.queryForMap("SELECT state, lease_owner, takeovers FROM import_job WHERE id = ?", processing))
                    .containsEntry("state", "PROCESSING").containsEntry("lease_owner", null)
                    .containsEntry("takeovers", 0);
        }
        jdbc.execute("ALTER TABLE import_job DROP CONSTRAINT hold_back");
        awaitState(validating, "COMPLETED");
        awaitState(processing, "COMPLETED");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM dead_letter", Long.class)).isZero();
    }

    // ---- an event Kafka refuses for good

    // slow tier: waits out Kafka refusing an event for good
    @SlowTest
    @Test
    void anEventKafkaRefusesBecomesADeadLetterAndTheOthersGoOutOnce() throws Exception {
        limitItemsTopic(3000);
        String run = UUID.randomUUID().toString().substring(0, 8);
        String huge = "x".repeat(5000);
        UUID job = ingest("big.csv", HEADER + "S1-" + run + ",1,SKU,1,2026-12-01,small\n"
                + "BIG-" + run + ",1,SKU,1,2026-12-01," + huge + "\n"
                + "S2-" + run + ",1,SKU,1,2026-12-01,small\n");
        assertThat(awaitState(job, "COMPLETED")).containsEntry("accepted", 3L);
        // the broker refuses the batch that holds the large event until the producer gives up on it (its delivery
        // timeout); then the relay sends one event alone, and Kafka's answer for that one is final
        await().atMost(Duration.ofSeconds(90)).until(
                () -> jdbc.queryForObject("SELECT count(*) FROM outbox", Long.class) == 0);

        Map<String, Object> letter = jdbc.queryForMap("SELECT * FROM dead_letter WHERE job_id = ?", job);
        String refusedId = jdbc.queryForObject("SELECT event_id::text FROM outbox_all WHERE event_key = ?",
                String.class,
                "ACME:BIG-" + run);
        assertThat(letter).containsEntry("stage", "relay")
                .containsEntry("exception", "org.apache.kafka.common.errors.RecordTooLargeException");
        assertThat((String) letter.get("message")).contains(refusedId).contains("ingestor.outbox.max-event-size");
        assertThat(
                jdbc.queryForObject("SELECT refused FROM outbox_all WHERE event_key = ?", String.class,
                        "ACME:BIG-" + run))
                .contains("RecordTooLargeException");
        // the job's effects stand
        assertThat(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, job))
                .isEqualTo("COMPLETED");

        List<String> sent = awaitEvents(ITEMS_TOPIC, e -> job.toString().equals(e.path("job_id").asString()), 2)
                .stream()
                .map(e -> e.get("source_id").asString()).toList();
        assertThat(sent).containsExactlyInAnyOrder("S1-" + run, "S2-" + run);
        assertThat(awaitEvents("ingestor.dead-letters", e -> job.toString().equals(e.path("job_id").asString()), 1))
                .singleElement().satisfies(e -> assertThat(e.get("stage").asString()).isEqualTo("relay"));

        // later events still flow
        UUID later = ingest("later.csv", HEADER + "S3-" + run + ",1,SKU,1,2026-12-01,small\n");
        awaitState(later, "COMPLETED");
        awaitPublished();
        assertThat(awaitEvents(ITEMS_TOPIC, e -> e.path("source_id").asString().endsWith(run), 3))
                .extracting(e -> e.get("source_id").asString())
                .containsExactlyInAnyOrder("S1-" + run, "S2-" + run, "S3-" + run);
    }

    // ---- helpers

    /** A job in validation whose worker died after {@code takeovers} takeovers: its lease has just run out. */
    private UUID poisonJob(int takeovers) {
        jdbc.execute("ALTER TABLE import_job ADD CONSTRAINT hold_back CHECK " + notLeasedBy(claims.owner())
                + " NOT VALID");
        try {
            UUID id = ingest("poison-" + UUID.randomUUID() + ".csv",
                    HEADER + "K-" + UUID.randomUUID() + ",1,SKU,1,2026-12-01,x\n");
            jdbc.update("UPDATE import_job SET state = 'VALIDATING', lease_owner = 'dead-instance',"
                    + " lease_until = now() - interval '1 second', attempts = ?, takeovers = ? WHERE id = ?",
                    takeovers + 1, takeovers, id);
            return id;
        } finally {
            jdbc.execute("ALTER TABLE import_job DROP CONSTRAINT hold_back");
        }
    }

    /** The claims of an instance named {@code id}, this test's to drive; this instance's workers may not claim. */
    private JobClaims workersOfAnotherInstance(String id) {
        jdbc.execute("ALTER TABLE import_job ADD CONSTRAINT hold_back CHECK " + notLeasedBy(claims.owner())
                + " NOT VALID");
        IngestorProperties named = new IngestorProperties();
        named.setInstanceId(id);
        return new JobClaims(jdbc, lifecycle, new InstanceId(named), pipeline, deadLetterWriter, transactionManager,
                metrics);
    }

    private UUID ingest(String name, String content) {
        return intake("ACME", name, content);
    }

    private Map<String, Object> awaitState(UUID id, String state) {
        await().atMost(Duration.ofSeconds(30)).until(
                () -> state.equals(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, id)));
        return jdbc.queryForMap("SELECT * FROM import_job WHERE id = ?", id);
    }

    private static String item(String sourceId, Long version, int quantity, String note) {
        return "{\"source_id\":\"" + sourceId + "\"," + (version == null ? "" : "\"source_version\":" + version + ",")
                + "\"sku\":\"SKU\",\"quantity\":" + quantity + ",\"delivery_date\":\"2026-12-01\",\"note\":\"" + note
                + "\"}";
    }

    /** Sends one item as a batch through the HTTP API and returns its outcome. */
    private String outcome(String item) throws Exception {
        HttpResponse<String> response = post("/api/v1/suppliers/ACME/items", ACME_KEY, "application/json",
                ("{\"items\":[" + item + "]}").getBytes(StandardCharsets.UTF_8), "Idempotency-Key",
                UUID.randomUUID().toString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return json(response.body()).get("items").get(0).get("outcome").asString();
    }

    private void awaitPublished() {
        await().atMost(Duration.ofSeconds(30)).until(
                () -> jdbc.queryForObject("SELECT count(*) FROM outbox", Long.class) == 0);
    }

    /**
     * The records of one item on the items topic, once there are {@code count} (a cold consumer may see none at first).
     */
    private List<ConsumerRecord<String, String>> recordsOf(String sourceId, int count) {
        return await()
                .atMost(Duration.ofSeconds(30)).until(
                        () -> TestKafka.readAll(ITEMS_TOPIC, Duration.ofSeconds(1)).stream()
                                .filter(r -> ("ACME:" + sourceId).equals(r.key())).toList(),
                        list -> list.size() >= count);
    }

    /** The events of {@code topic} that {@code which} selects, once there are {@code count} of them. */
    private List<JsonNode> awaitEvents(String topic, java.util.function.Predicate<JsonNode> which, int count) {
        return await().atMost(Duration.ofSeconds(30))
                .until(() -> TestKafka.readAll(topic, Duration.ofSeconds(1)).stream()
                        .map(r -> json(r.value())).filter(which).toList(), list -> list.size() >= count);
    }

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Admin kafkaAdmin() {
        return Admin.create(Map.of("bootstrap.servers", TestKafka.bootstrapServers()));
    }

    /** The broker refuses records of the items topic larger than {@code bytes} (max.message.bytes). */
    private static void limitItemsTopic(int bytes) throws Exception {
        topicLimited = true;
        try (Admin admin = kafkaAdmin()) {
            try {
                admin.createTopics(List.of(new NewTopic(ITEMS_TOPIC, 1, (short) 1))).all().get();
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, ITEMS_TOPIC);
            admin.incrementalAlterConfigs(Map.of(topic, List.of(new AlterConfigOp(
                    new ConfigEntry("max.message.bytes", String.valueOf(bytes)), AlterConfigOp.OpType.SET)))).all()
                    .get();
            await().atMost(Duration.ofSeconds(10)).until(() -> String.valueOf(bytes).equals(
                    admin.describeConfigs(List.of(topic)).all().get().get(topic).get("max.message.bytes").value()));
        }
    }
}
