package dev.ingestor.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.intake.IntakeResult;
import dev.ingestor.support.CapturedLogs;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestKafka;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** Intake → validation → processing → outbox → Kafka, on a real PostgreSQL and a real Kafka broker. */
class PipelineTest extends IngestorTestSupport {

    private static final String HEADER = "source_id,source_version,sku,quantity,delivery_date,colour\n";

    @Autowired
    ObjectMapper mapper;

    @AfterEach
    void removeFaults() {
        jdbc.execute("DROP TRIGGER IF EXISTS inject_fault ON item");
        jdbc.execute("DROP FUNCTION IF EXISTS inject_item_fault()");
        jdbc.execute("DROP SEQUENCE IF EXISTS item_fault_calls");
        jdbc.execute("ALTER TABLE import_job DROP CONSTRAINT IF EXISTS hold_back");
        jdbc.execute("DROP TRIGGER IF EXISTS record_lease_change ON import_job");
        jdbc.execute("DROP FUNCTION IF EXISTS record_lease_change()");
        jdbc.execute("DROP TABLE IF EXISTS lease_change");
    }

    private UUID ingest(String supplier, String name, String content) {
        return ingest(supplier, name, content.getBytes(StandardCharsets.UTF_8));
    }

    private UUID ingest(String supplier, String name, byte[] content) {
        IntakeResult result = producer.requestBodyAndHeaders("direct:intake", content,
                Map.of(IntakeHeaders.SUPPLIER, supplier, IntakeHeaders.FILE_NAME, name, IntakeHeaders.SOURCE, "test"),
                IntakeResult.class);
        return result.job().id();
    }

    private Map<String, Object> awaitJob(UUID id, String... states) {
        await().atMost(Duration.ofSeconds(30)).until(() -> List.of(states)
                .contains(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, id)));
        return jdbc.queryForMap("SELECT * FROM import_job WHERE id = ?", id);
    }

    private List<JsonNode> eventsOf(String topic, UUID jobId) {
        await().atMost(Duration.ofSeconds(30)).until(
                () -> jdbc.queryForObject("SELECT count(*) FROM outbox", Long.class) == 0);
        return TestKafka.readAll(topic, Duration.ofSeconds(1)).stream()
                .map(ConsumerRecord::value).map(this::json)
                .filter(e -> jobId == null || jobId.toString().equals(e.path("job_id").asString()))
                .toList();
    }

    private JsonNode json(String text) {
        try {
            return mapper.readTree(text);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void failItemWrites(long failures) {
        jdbc.execute("CREATE SEQUENCE item_fault_calls");
        jdbc.execute("""
                CREATE FUNCTION inject_item_fault() RETURNS trigger AS $$
                BEGIN
                  IF nextval('item_fault_calls') <= %d THEN
                    RAISE EXCEPTION 'deadlock detected (injected)' USING ERRCODE = '40P01';
                  END IF;
                  RETURN NEW;
                END $$ LANGUAGE plpgsql""".formatted(failures));
        jdbc.execute(
                "CREATE TRIGGER inject_fault BEFORE INSERT ON item FOR EACH ROW EXECUTE FUNCTION inject_item_fault()");
    }

    @Test
    void goodRecordsBecomeEventsBadOnesAreQuarantinedReplaysChangeNothingAndHigherVersionsUpdate() throws Exception {
        UUID first = ingest("ACME", "advice.csv", HEADER
                + "P-1,1,SKU-1,10,2026-12-01,red\n"
                + "P-2,1,SKU-2,0,2026-12-01,red\n"
                + "P-3,1,SKU-3,5,2026-12-02,blue\n"
                + "P-4,1,SKU-4,7,2026-13-45,blue\n"
                + "P-5,,SKU-5,1,2026-12-03,green\n");
        Map<String, Object> job = awaitJob(first, "COMPLETED_WITH_ERRORS");
        assertThat(job).containsEntry("total", 5L).containsEntry("accepted", 3L).containsEntry("quarantined", 2L)
                .containsEntry("updated", 0L).containsEntry("replayed", 0L);

        JsonNode quarantined = json(get("/api/v1/jobs/" + first + "/records?outcome=QUARANTINED").body());
        assertThat(quarantined.get("total").asLong()).isEqualTo(2);
        assertThat(quarantined.get("items").get(0).get("reason").asString())
                .isEqualTo("line 3: quantity: '0' is not a whole number greater than 0");
        assertThat(quarantined.get("items").get(1).get("reason").asString())
                .isEqualTo("line 5: delivery_date: '2026-13-45' is not an ISO date (YYYY-MM-DD)");

        List<JsonNode> events = eventsOf("ingestor.items", first);
        assertThat(events).hasSize(3);
        assertThat(events).extracting(e -> e.get("source_id").asString()).containsExactlyInAnyOrder("P-1", "P-3",
                "P-5");
        assertThat(events).allSatisfy(e -> {
            assertThat(e.get("outcome").asString()).isEqualTo("ACCEPTED");
            assertThat(e.get("supplier").asString()).isEqualTo("ACME");
            assertThat(e.get("event_id").asString()).isNotBlank();
        });
        JsonNode p1 = events.stream().filter(e -> e.get("source_id").asString().equals("P-1")).findFirst()
                .orElseThrow();
        assertThat(p1.get("record").get("colour").asString()).isEqualTo("red");
        assertThat(p1.get("source_version").asLong()).isEqualTo(1);

        // the same records in another file (other bytes: another order): all replays, nothing published
        UUID replay = ingest("ACME", "advice-again.csv", HEADER
                + "P-5,,SKU-5,1,2026-12-03,green\n"
                + "P-3,1,SKU-3,5,2026-12-02,blue\n"
                + "P-1,1,SKU-1,10,2026-12-01,red\n");
        assertThat(awaitJob(replay, "COMPLETED")).containsEntry("replayed", 3L).containsEntry("accepted", 0L)
                .containsEntry("updated", 0L);
        assertThat(eventsOf("ingestor.items", replay)).isEmpty();

        // a higher version updates, a lower one is a replay, a changed unversioned record updates,
        // and a record quarantined before is judged afresh
        UUID update = ingest("ACME", "advice-v2.csv", HEADER
                + "P-1,2,SKU-1,12,2026-12-01,red\n"
                + "P-3,0,SKU-3,99,2026-12-02,blue\n"
                + "P-5,,SKU-5,2,2026-12-03,green\n"
                + "P-2,1,SKU-2,4,2026-12-01,red\n");
        assertThat(awaitJob(update, "COMPLETED")).containsEntry("updated", 2L).containsEntry("replayed", 1L)
                .containsEntry("accepted", 1L);
        List<JsonNode> updates = eventsOf("ingestor.items", update);
        assertThat(updates).extracting(e -> e.get("source_id").asString() + " " + e.get("outcome").asString())
                .containsExactlyInAnyOrder("P-1 UPDATED", "P-5 UPDATED", "P-2 ACCEPTED");
        assertThat(jdbc.queryForObject("SELECT record::jsonb->>'quantity' FROM item WHERE source_id = 'P-3'",
                String.class)).isEqualTo("5");
        // every event is keyed supplier:source_id
        assertThat(TestKafka.readAll("ingestor.items", Duration.ofSeconds(1))).extracting(ConsumerRecord::key)
                .contains("ACME:P-1", "ACME:P-3", "ACME:P-5");
    }

    @Test
    void aTransientDatabaseFailureDuringProcessingIsRedeliveredAndTakesEffectOnce() throws Exception {
        failItemWrites(2);
        UUID id = ingest("ACME", "advice.csv", HEADER + "T-1,1,SKU,1,2026-12-01,x\nT-2,1,SKU,2,2026-12-01,x\n");
        assertThat(awaitJob(id, "COMPLETED")).containsEntry("accepted", 2L);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item", Long.class)).isEqualTo(2);
        assertThat(eventsOf("ingestor.items", id)).hasSize(2);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM dead_letter", Long.class)).isZero();
    }

    // slow tier: every redelivery of the policy waited out
    @SlowTest
    @Test
    void aFailureThatOutlastsThePolicyFailsTheJobWithOneDeadLetterAndOneEvent() throws Exception {
        failItemWrites(Long.MAX_VALUE);
        UUID id = ingest("ACME", "advice.csv", HEADER + "D-1,1,SKU,1,2026-12-01,x\n");
        Map<String, Object> job = awaitJob(id, "FAILED");
        assertThat((String) job.get("error")).contains("processing failed").contains("deadlock detected (injected)");
        Map<String, Object> dead = jdbc.queryForMap("SELECT * FROM dead_letter");
        // processing's own policy: ingestor.pipeline.processing.redelivery.maximum-redeliveries 3 in the test
        // properties (validation's is 2), so the first try and three redeliveries
        assertThat(dead).containsEntry("job_id", id).containsEntry("stage", "processing").containsEntry("attempts", 4);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item", Long.class)).isZero();
        List<JsonNode> deadEvents = eventsOf("ingestor.dead-letters", id);
        assertThat(deadEvents).hasSize(1);
        assertThat(deadEvents.get(0).get("stage").asString()).isEqualTo("processing");
        assertThat(eventsOf("ingestor.items", id)).isEmpty();
    }

    @Autowired
    dev.ingestor.job.JobClaims claims;

    // slow tier: a lease waited out
    @SlowTest
    @Test
    void aJobWhoseWorkerDiedIsTakenOverAfterTheLeaseWithoutDuplicateEffects() throws Exception {
        recordLeaseChanges();
        // a worker of another instance claimed the job, wrote part of its validation (the quarantined record)
        // and died: its lease runs out in a moment. This instance's workers are kept off the job meanwhile.
        UUID id;
        jdbc.execute("ALTER TABLE import_job ADD CONSTRAINT hold_back CHECK " + notLeasedBy(claims.owner())
                + " NOT VALID");
        try {
            id = ingest("ACME", "advice.csv", HEADER + "W-1,1,SKU,1,2026-12-01,x\nW-2,1,SKU,2,2026-12-01,x\n"
                    + "W-3,1,SKU,0,2026-12-01,x\n");
            assertThat(jdbc.update(
                    "UPDATE import_job SET state = 'VALIDATING', lease_owner = 'dead-instance', attempts = 1,"
                            + " lease_until = now() + interval '2 seconds' WHERE id = ? AND state = 'RECEIVED' AND lease_owner IS NULL",
                    id))
                    .as("the dead worker's claim").isEqualTo(1);
            jdbc.update("INSERT INTO job_record (job_id, record_no, line, outcome, source_id, reason)"
                    + " VALUES (?, 3, 4, 'QUARANTINED', 'W-3', 'written by the dead worker')", id);
        } finally {
            jdbc.execute("ALTER TABLE import_job DROP CONSTRAINT hold_back");
        }
        Map<String, Object> job = awaitJob(id, "COMPLETED_WITH_ERRORS");

        // taken over: by this instance, from the dead one, counted as a takeover, and not before the lease ran out
        Map<String, Object> takeover = jdbc
                .queryForMap("SELECT new_owner, takeovers, changed_at >= old_until AS after_lease"
                        + " FROM lease_change WHERE job_id = ? AND old_owner = 'dead-instance'", id);
        assertThat(takeover).containsEntry("takeovers", 1).containsEntry("after_lease", true);
        assertThat((String) takeover.get("new_owner")).startsWith(claims.owner() + "/");
        // the dead worker's claim, the takeover, and processing
        assertThat(job).containsEntry("attempts", 3).containsEntry("accepted", 2L).containsEntry("quarantined", 1L)
                .containsEntry("updated", 0L).containsEntry("replayed", 0L);

        // each effect once: the dead worker's partial validation was replaced, not added to
        assertThat(jdbc.queryForList("SELECT reason FROM job_record WHERE job_id = ?", String.class, id))
                .singleElement()
                .satisfies(reason -> assertThat(reason).startsWith("line 4: quantity"));
        assertThat(jdbc.queryForList("SELECT source_id FROM item ORDER BY source_id", String.class))
                .containsExactly("W-1", "W-2");
        assertThat(
                jdbc.queryForList("SELECT event_key FROM outbox_all WHERE topic = 'ingestor.items' ORDER BY event_key",
                        String.class))
                .containsExactly("ACME:W-1", "ACME:W-2");
        assertThat(eventsOf("ingestor.items", id)).extracting(e -> e.get("source_id").asString())
                .containsExactlyInAnyOrder("W-1", "W-2");
    }

    /**
     * A file of at most ingestor.pipeline.batch-size records and one-pass-max-size is processed by the worker that
     * validated it, which holds it throughout (one claim, the file read once); a larger one (more records, or more
     * bytes) is let go after validation and claimed by a processing worker, which reads it again, so a worker never
     * holds more than a batch of records of a small file.
     */
    @Test
    void aSmallFileIsProcessedByTheWorkerThatValidatedItAndALargerOneWaitsForAProcessingWorker() throws Exception {
        recordLeaseChanges();
        CapturedLogs processed = CapturedLogs.of("dev.ingestor.processing");
        UUID small = ingest("ACME", "small.csv", HEADER + "H-1,1,SKU,1,2026-12-01,x\nH-2,1,SKU,0,2026-12-01,x\n");
        StringBuilder large = new StringBuilder(HEADER);
        int records = pipeline.getBatchSize() + 1;
        for (int i = 0; i < records; i++) {
            large.append("L-").append(i).append(",1,SKU,1,2026-12-01,x\n");
        }
        UUID big = ingest("ACME", "large.csv", large.toString());
        // few records, but more bytes than ingestor.pipeline.one-pass-max-size (64KB in the tests): read again too
        StringBuilder wide = new StringBuilder(HEADER);
        for (int i = 0; i < 40; i++) {
            wide.append("W-").append(i).append(",1,SKU,1,2026-12-01,").append("w".repeat(2000)).append('\n');
        }
        UUID heavy = ingest("ACME", "wide.csv", wide.toString());

        assertThat(awaitJob(small, "COMPLETED_WITH_ERRORS")).containsEntry("accepted", 1L)
                .containsEntry("quarantined", 1L)
                .containsEntry("attempts", 2);
        assertThat(awaitJob(big, "COMPLETED")).containsEntry("accepted", (long) records).containsEntry("attempts", 2);
        assertThat(awaitJob(heavy, "COMPLETED")).containsEntry("accepted", 40L);
        // claimed, then let go at rest: never let go in between, one claim's lease throughout
        assertThat(leaseOwners(small)).containsExactly("- > lease 1", "lease 1 > -");
        // claimed for validation, let go to wait, claimed for processing (a lease of its own), let go at rest
        assertThat(leaseOwners(big)).containsExactly("- > lease 1", "lease 1 > -", "- > lease 2", "lease 2 > -");
        assertThat(eventsOf("ingestor.items", small)).extracting(e -> e.get("source_id").asString())
                .containsExactly("H-1");
        // the small file's records came from validation, the larger file was read again
        try (processed) {
            assertThat(processed.messages()).anyMatch(m -> m.contains("job=" + small) && m.endsWith("reads=1"))
                    .anyMatch(m -> m.contains("job=" + big) && m.endsWith("reads=2"))
                    .anyMatch(m -> m.contains("job=" + heavy) && m.endsWith("reads=2"));
        }
    }

    @Autowired
    dev.ingestor.job.PipelineSettings pipeline;

    /**
     * The job's changes of lease owner, each lease named by the order it first appears in ("lease 1"): every one of
     * them this instance's.
     */
    private List<String> leaseOwners(UUID job) {
        Map<String, String> names = new java.util.LinkedHashMap<>();
        java.util.function.Function<String, String> name = lease -> {
            if (lease == null) {
                return "-";
            }
            assertThat(lease).startsWith(claims.owner() + "/");
            return names.computeIfAbsent(lease, l -> "lease " + (names.size() + 1));
        };
        return jdbc.query("SELECT old_owner, new_owner FROM lease_change WHERE job_id = ? ORDER BY changed_at",
                (rs, n) -> name.apply(rs.getString(1)) + " > " + name.apply(rs.getString(2)), job);
    }

    /** Every change of a job's lease owner, kept in lease_change until the test ends. */
    private void recordLeaseChanges() {
        jdbc.execute("CREATE TABLE lease_change (job_id uuid, old_owner text, new_owner text, old_until timestamptz,"
                + " takeovers int, changed_at timestamptz)");
        jdbc.execute("""
                CREATE FUNCTION record_lease_change() RETURNS trigger AS $$
                BEGIN
                  INSERT INTO lease_change VALUES (NEW.id, OLD.lease_owner, NEW.lease_owner, OLD.lease_until,
                                                   NEW.takeovers, clock_timestamp());
                  RETURN NEW;
                END $$ LANGUAGE plpgsql""");
        jdbc.execute("CREATE TRIGGER record_lease_change AFTER UPDATE ON import_job FOR EACH ROW"
                + " WHEN (OLD.lease_owner IS DISTINCT FROM NEW.lease_owner) EXECUTE FUNCTION record_lease_change()");
    }

    @Autowired
    dev.ingestor.processing.ItemStore items;

    // slow tier: a lease waited out
    @SlowTest
    @Test
    void aWorkerKilledAfterItsFirstBatchIsResumedAfterItsCheckpointWithEachEffectOnce() throws Exception {
        // hold the job back from our workers while the "other instance" claims it
        jdbc.execute("ALTER TABLE import_job ADD CONSTRAINT hold_back CHECK (state <> 'VALIDATING') NOT VALID");
        UUID id;
        try {
            id = ingest("ACME", "advice.csv", HEADER + "R-1,1,SKU,1,2026-12-01,x\nR-2,1,SKU,2,2026-12-01,x\n"
                    + "R-3,1,SKU,3,2026-12-01,x\nR-4,1,SKU,4,2026-12-01,x\n");
        } finally {
            jdbc.execute("ALTER TABLE import_job DROP CONSTRAINT hold_back");
        }
        // the other instance validated the job, committed its first batch with the checkpoint, and died
        jdbc.update("UPDATE import_job SET state = 'PROCESSING', total = 4, lease_owner = 'killed-worker',"
                + " lease_until = now() + interval '2 seconds' WHERE id = ?", id);
        var firstBatch = List.of(
                new dev.ingestor.validation.DeliveryAdvice("R-1", 1L, "SKU", 1, java.time.LocalDate.of(2026, 12, 1),
                        Map.of("colour", "x")),
                new dev.ingestor.validation.DeliveryAdvice("R-2", 1L, "SKU", 2, java.time.LocalDate.of(2026, 12, 1),
                        Map.of("colour", "x")));
        var applied = items.apply("ACME", id, "ingestor.items", firstBatch);
        jdbc.update("UPDATE import_job SET records_done = 2, accepted = ? WHERE id = ?", applied.accepted(), id);

        Map<String, Object> job = awaitJob(id, "COMPLETED");
        assertThat(job).containsEntry("accepted", 4L).containsEntry("replayed", 0L).containsEntry("records_done", 4L);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item", Long.class)).isEqualTo(4);
        List<JsonNode> events = eventsOf("ingestor.items", id);
        assertThat(events).extracting(e -> e.get("source_id").asString()).containsExactlyInAnyOrder("R-1", "R-2", "R-3",
                "R-4");
    }

    @Test
    void unreadableFilesAreRejectedWithAReasonAPersonUnderstands() throws Exception {
        UUID garbage = ingest("ACME", "garbage.csv", new byte[] {(byte) 0xff, (byte) 0xfe, 0x00, 0x41, (byte) 0xc3});
        UUID nulHeader = ingest("ACME", "nul.csv", "so\u0000urce_id,sku\n1,2\n");
        UUID headerOnly = ingest("ACME", "header-only.csv", HEADER);
        UUID missingColumn = ingest("ACME", "no-sku.csv", "source_id,quantity,delivery_date\nM-1,1,2026-12-01\n");
        UUID notJson = ingest("GLOBEX", "advice.json", "source_id,sku\n");

        assertThat((String) awaitJob(garbage, "REJECTED").get("error")).contains("not valid text");
        assertThat((String) awaitJob(headerOnly, "REJECTED").get("error")).isEqualTo("the file holds no records");
        assertThat((String) awaitJob(nulHeader, "REJECTED").get("error")).contains("so\\u0000urce_id");
        assertThat((String) awaitJob(missingColumn, "REJECTED").get("error")).contains("lacks the column(s) [sku]");
        assertThat((String) awaitJob(notJson, "REJECTED").get("error")).contains("is not JSON");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item", Long.class)).isZero();
    }

    @Test
    void jsonRecordsAndJsonLinesAreReadAndBrokenLinesQuarantined() throws Exception {
        UUID array = ingest("GLOBEX", "a.json", """
                [{"source_id": "J-1", "sku": "S", "quantity": 3, "delivery_date": "2026-12-01"},
                 {"source_id": "J-2", "sku": "S", "quantity": "many", "delivery_date": "2026-12-01"}]""");
        UUID lines = ingest("GLOBEX", "b.jsonl", """
                {"source_id": "J-3", "sku": "S", "quantity": 1, "delivery_date": "2026-12-01"}
                {"source_id": "J-4", "sku": broken
                {"source_id": "J-5", "sku": "S", "quantity": 2, "delivery_date": "2026-12-02", "note": {"a": 1}}
                """);
        assertThat(awaitJob(array, "COMPLETED_WITH_ERRORS")).containsEntry("accepted", 1L).containsEntry("quarantined",
                1L);
        assertThat(awaitJob(lines, "COMPLETED_WITH_ERRORS")).containsEntry("accepted", 2L).containsEntry("quarantined",
                1L);
        assertThat(jdbc.queryForObject("SELECT reason FROM job_record WHERE job_id = ?", String.class, lines))
                .startsWith("line 2 is not valid JSON");
    }

    // slow tier: the Kafka broker stopped and started
    @SlowTest
    @Test
    void whileKafkaIsDownTheOutboxKeepsTheEventsAndDrainsThemWhenItReturns() throws Exception {
        TestKafka.bootstrapServers();
        TestKafka.stop();
        UUID id;
        try (CapturedLogs relay = CapturedLogs.of("dev.ingestor.outbox")) {
            id = ingest("ACME", "advice.csv",
                    HEADER + "K-1,1,SKU,1,2026-12-01,x\nK-2,1,SKU,2,2026-12-01,x\nK-3,1,SKU,3,2026-12-01,x\n");
            assertThat(awaitJob(id, "COMPLETED")).containsEntry("accepted", 3L);
            // a publish attempt failed (the relay says so once Kafka's timeout has passed), and the events stayed
            await().atMost(Duration.ofSeconds(60)).until(() -> relay.messages().stream()
                    .anyMatch(m -> m.startsWith("outbox relay for ingestor.items")));
            assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox", Long.class))
                    .isEqualTo(3);
        } finally {
            TestKafka.start();
        }
        List<JsonNode> events = eventsOf("ingestor.items", id);
        // nothing is lost; a batch that failed mid-send may arrive again, and its stable event ids say so
        assertThat(events).extracting(e -> e.get("source_id").asString()).contains("K-1", "K-2", "K-3");
        assertThat(events.stream().map(e -> e.get("event_id").asString()).distinct()).hasSize(3);
        assertThat(events).allSatisfy(e -> assertThat(e.get("event_id").asString())
                .isEqualTo(
                        jdbc.queryForObject("SELECT event_id::text FROM outbox_all WHERE event_key = ?", String.class,
                                "ACME:" + e.get("source_id").asString())));
    }
}
