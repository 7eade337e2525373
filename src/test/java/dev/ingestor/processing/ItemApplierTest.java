package dev.ingestor.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.job.ImportJob;
import dev.ingestor.job.JobState;
import dev.ingestor.job.RecordCounts;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.validation.DeliveryAdvice;
import dev.ingestor.validation.RawRecord;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.DataIntegrityViolationException;
import tools.jackson.databind.JsonNode;

/**
 * The item batch applied while its caller waits and the processing stage apply records through one applier:
 * the same records give the same outcomes and the same events either way, on the real server and PostgreSQL.
 */
class ItemApplierTest extends IngestorTestSupport {

    /** Every outcome: new, an item again in the same records, a higher version, a changed content, a bad record. */
    private static final String RECORDS = """
            {"items": [
              {"source_id": "A-1", "source_version": 1, "sku": "S", "quantity": 1, "delivery_date": "2026-12-01"},
              {"source_id": "A-2", "sku": "S", "quantity": 1, "delivery_date": "2026-12-01", "note": "a"},
              {"source_id": "A-1", "source_version": 1, "sku": "S", "quantity": 1, "delivery_date": "2026-12-01"},
              {"source_id": "A-1", "source_version": 2, "sku": "S", "quantity": 2, "delivery_date": "2026-12-01"},
              {"source_id": "A-3", "sku": "S", "quantity": "many", "delivery_date": "2026-12-01"},
              {"source_id": "A-2", "sku": "S", "quantity": 1, "delivery_date": "2026-12-01", "note": "b"},
              {"source_id": "A-2", "sku": "S", "quantity": 1, "delivery_date": "2026-12-01", "note": "b"}
            ]}""";

    @Autowired
    ItemApplier applier;

    @Test
    void theSameRecordsGiveTheSameOutcomesAndEventsAppliedAtOnceAndByTheStages() throws Exception {
        // the same items for two partners: ACME's applied while it waits, GLOBEX's made a job for the stages
        HttpResponse<String> sync = post("/api/v1/suppliers/ACME/items", ACME_KEY, "application/json",
                RECORDS.getBytes(StandardCharsets.UTF_8), "Idempotency-Key", UUID.randomUUID().toString());
        assertThat(sync.statusCode()).as(sync.body()).isEqualTo(200);
        HttpResponse<String> bulk = post("/api/v1/suppliers/GLOBEX/items?mode=bulk", GLOBEX_KEY, "application/json",
                RECORDS.getBytes(StandardCharsets.UTF_8), "Idempotency-Key", UUID.randomUUID().toString());
        assertThat(bulk.statusCode()).as(bulk.body()).isEqualTo(202);

        JsonNode answer = JSON.readTree(sync.body());
        List<String> outcomes = new ArrayList<>();
        answer.get("items").forEach(item -> outcomes.add(item.get("outcome").asString()));
        assertThat(outcomes).containsExactly("ACCEPTED", "ACCEPTED", "REPLAY", "UPDATED", "QUARANTINED", "UPDATED",
                "REPLAY");

        UUID syncJob = UUID.fromString(answer.get("jobId").asString());
        UUID bulkJob = UUID.fromString(JSON.readTree(bulk.body()).get("id").asString());
        await().atMost(Duration.ofSeconds(30)).until(() -> "COMPLETED_WITH_ERRORS".equals(
                jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, bulkJob)));
        String counts = "SELECT total || '/' || accepted || '/' || updated || '/' || replayed || '/' || quarantined"
                + " || '/' || records_done FROM import_job WHERE id = ?";
        assertThat(jdbc.queryForObject(counts, String.class, syncJob)).isEqualTo("7/2/2/2/1/7")
                .isEqualTo(jdbc.queryForObject(counts, String.class, bulkJob));
        String quarantined = "SELECT string_agg(record_no || ':' || source_id, ',') FROM job_record WHERE job_id = ?";
        assertThat(jdbc.queryForObject(quarantined, String.class, syncJob)).isEqualTo("5:A-3")
                .isEqualTo(jdbc.queryForObject(quarantined, String.class, bulkJob));

        // one event per effect, in the order of the effects, alike but for the partner and the job
        List<Map<String, Object>> acme = events("ACME", syncJob);
        List<Map<String, Object>> globex = events("GLOBEX", bulkJob);
        assertThat(acme).extracting(e -> e.get("source_id") + " r" + e.get("revision") + " " + e.get("outcome"))
                .containsExactly("A-1 r1 ACCEPTED", "A-2 r1 ACCEPTED", "A-1 r2 UPDATED", "A-2 r2 UPDATED");
        assertThat(acme).isEqualTo(globex);
        List<String> ids = jdbc.queryForList(
                "SELECT event_id::text FROM outbox_all WHERE payload::jsonb->>'job_id' IN (?, ?)",
                String.class, syncJob.toString(), bulkJob.toString());
        assertThat(ids).hasSize(8).doesNotHaveDuplicates();
    }

    /** The events of a job's effects, without what differs by partner and job. */
    private List<Map<String, Object>> events(String supplier, UUID job) {
        return jdbc.queryForList("SELECT event_key = ? || ':' || (payload::jsonb->>'source_id') AS keyed,"
                + " event_id::text = payload::jsonb->>'event_id' AS id_in_payload,"
                + " (payload::jsonb - 'event_id' - 'job_id' - 'supplier')::text AS rest,"
                + " payload::jsonb->>'source_id' AS source_id, payload::jsonb->>'revision' AS revision,"
                + " payload::jsonb->>'outcome' AS outcome"
                + " FROM outbox_all WHERE topic = 'ingestor.items' AND payload::jsonb->>'job_id' = ? ORDER BY id",
                supplier, job.toString()).stream().peek(e -> {
                    assertThat(e.get("keyed")).isEqualTo(true);
                    assertThat(e.get("id_in_payload")).isEqualTo(true);
                }).toList();
    }

    @Test
    void aJobsBatchesCommitWithTheRecordsDoneAndAnItemSeenAgainStartsTheNextBatch() {
        String supplier = "APPLIER-" + UUID.randomUUID();
        UUID id = UUID.randomUUID();
        List<RawRecord> records = List.of(record(1, "B-1"), record(2, "B-1"), record(3, "B-2"), bad(4),
                record(5, "B-3"), bad(6));
        List<String> commits = new ArrayList<>();
        // the records validation quarantined: bad(4) and bad(6)
        java.util.function.LongPredicate quarantined = recordNo -> recordNo == 4 || recordNo == 6;
        ItemApplier.Applied applied = applier.applyJob(job(id, supplier, 0), 0, records.iterator(), 2, quarantined,
                (apply, from, position, last) -> {
                    AppliedBatch batch = apply.get();
                    commits.add(from + "-" + position + ":" + batch.sent().size() + (last ? " last" : ""));
                    return batch;
                });
        // B-1 again goes into the next statement, with the records before it done; a full batch commits; the
        // last commit carries the position of the last record even when no valid record is left, and says it is last
        assertThat(commits).containsExactly("0-1:1", "1-3:2", "3-6:1 last");
        assertThat(applied.position()).isEqualTo(6);
        assertThat(applied.counts()).isEqualTo(new RecordCounts(6, 3, 1, 0, 2));
        assertThat(applied.records()).as("a job's records are not kept").isEmpty();

        // a run after a checkpoint of 3 skips what was done and applies the rest: B-3 once more is a REPLAY. The
        // checkpoint given decides, not the job's recordsDone as it was claimed (a retry's job is the first attempt's)
        commits.clear();
        applied = applier.applyJob(job(id, supplier, 0), 3, records.iterator(), 2, quarantined,
                (apply, from, position, last) -> {
                    AppliedBatch batch = apply.get();
                    commits.add(from + "-" + position + ":" + batch.sent().size() + (last ? " last" : ""));
                    return batch;
                });
        assertThat(commits).containsExactly("3-6:1 last");
        assertThat(applied.counts()).isEqualTo(new RecordCounts(3, 0, 0, 1, 2));
        assertThat(
                jdbc.queryForObject("SELECT count(*) FROM outbox_all WHERE event_key LIKE ? || ':%'", Long.class,
                        supplier))
                .isEqualTo(4);
    }

    /**
     * A group's small files share apply statements, and give what one file after the other would: an item a later
     * file brings again is judged against the earlier file's effect, the same source id of another supplier is
     * another item, each file keeps its own counts, quarantine and events (with its job), in the files' order.
     */
    @Test
    void aGroupsFilesShareStatementsAndEachGetsWhatItWouldAlone() {
        String acme = "GROUP-" + UUID.randomUUID();
        String globex = "GROUP-" + UUID.randomUUID();
        List<UUID> jobs = jdbc.queryForList("""
                INSERT INTO import_job (id, supplier, state, key, file_name, size, source, request_key)
                SELECT gen_random_uuid(), 'ACME', 'VALIDATING', 'ACME:' || md5(random()::text), 'g-' || n || '.csv', 1,
                       'test', 'r-' || n
                FROM generate_series(1, 4) n ORDER BY n RETURNING id""", UUID.class);
        List<Integer> statements = new ArrayList<>();
        ItemStore counting = new ItemStore(jdbc, transactionManager, outboxWriter) {
            @Override
            public AppliedBatch apply(String topic, List<Entry> batch) {
                statements.add(batch.size());
                return super.apply(topic, batch);
            }
        };
        ItemApplier grouped = new ItemApplier(counting, quarantineWriter, kafkaSettings);
        List<RecordCounts> counts = transactions().execute(status -> grouped.applyGroup(List.of(
                new ItemApplier.GroupFile(acme, jobs.get(0), null, false, List.of(versioned(0, "A-1", 1), bad(1),
                        versioned(2, "A-2", 1))),
                new ItemApplier.GroupFile(globex, jobs.get(1), null, false, List.of(versioned(0, "A-1", 1))),
                new ItemApplier.GroupFile(acme, jobs.get(2), null, false,
                        List.of(versioned(0, "A-1", 2), versioned(1, "A-3", 1))),
                new ItemApplier.GroupFile(acme, jobs.get(3), null, false, List.of(versioned(0, "A-2", 1)))), 1000));

        assertThat(counts).containsExactly(new RecordCounts(3, 2, 0, 0, 1), new RecordCounts(1, 1, 0, 0, 0),
                new RecordCounts(2, 1, 1, 0, 0), new RecordCounts(1, 0, 0, 1, 0));
        // four files, two statements: the third file's A-1 is an item the first statement holds, so it starts the
        // second, where the fourth file's A-2 joins it
        assertThat(statements).containsExactly(3, 3);
        assertThat(jdbc.queryForList("SELECT event_key || ' r' || (payload::jsonb->>'revision') || ' '"
                + " || (payload::jsonb->>'outcome') || ' ' || (payload::jsonb->>'job_id') FROM outbox_all"
                + " WHERE event_key LIKE 'GROUP-%' AND payload::jsonb->>'job_id' = ANY (?::text[]) ORDER BY id",
                String.class, (Object) jobs.stream().map(UUID::toString).toArray(String[]::new))).containsExactly(
                        acme + ":A-1 r1 ACCEPTED " + jobs.get(0), acme + ":A-2 r1 ACCEPTED " + jobs.get(0),
                        globex + ":A-1 r1 ACCEPTED " + jobs.get(1), acme + ":A-1 r2 UPDATED " + jobs.get(2),
                        acme + ":A-3 r1 ACCEPTED " + jobs.get(2));
        assertThat(jdbc.queryForList("SELECT supplier || ':' || source_id || ' r' || revision || ' ' || job_id"
                + " FROM item_version WHERE supplier IN (?, ?) ORDER BY supplier, source_id, revision", String.class,
                acme, globex)).containsExactlyInAnyOrder(acme + ":A-1 r1 " + jobs.get(0),
                        acme + ":A-1 r2 " + jobs.get(2), acme + ":A-2 r1 " + jobs.get(0),
                        acme + ":A-3 r1 " + jobs.get(2), globex + ":A-1 r1 " + jobs.get(1));
        assertThat(jdbc.queryForList("SELECT job_id FROM job_record WHERE job_id = ANY (?::uuid[])", UUID.class,
                (Object) jobs.toArray(UUID[]::new))).containsExactly(jobs.get(0));
        // no other event of these items, and each item names the job of its last effect
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_all WHERE event_key LIKE ? OR event_key LIKE ?",
                Long.class, acme + ":%", globex + ":%")).isEqualTo(5);
        assertThat(jdbc.queryForList("SELECT supplier || ':' || source_id || ' ' || job_id FROM item"
                + " WHERE supplier IN (?, ?)", String.class, acme, globex)).containsExactlyInAnyOrder(
                        acme + ":A-1 " + jobs.get(2), acme + ":A-2 " + jobs.get(0), acme + ":A-3 " + jobs.get(2),
                        globex + ":A-1 " + jobs.get(1));

        // statements of at most the batch size, cut inside a file: each record still counts for its own file, and
        // a tombstone in a group retires its item as it would alone
        statements.clear();
        Map<String, String> tombstone = Map.of("source_id", "A-2", "source_version", "2", "deleted", "true");
        counts = transactions().execute(status -> grouped.applyGroup(List.of(
                new ItemApplier.GroupFile(acme, jobs.get(0), null, false,
                        List.of(versioned(0, "B-1", 1), versioned(1, "B-2", 1),
                                versioned(2, "B-3", 1))),
                new ItemApplier.GroupFile(acme, jobs.get(1), null, false, List.of(new RawRecord(0, 1, tombstone, null),
                        versioned(1, "A-3", 1)))),
                2));
        assertThat(statements).containsExactly(2, 2, 1);
        assertThat(counts).containsExactly(new RecordCounts(3, 3, 0, 0, 0), new RecordCounts(2, 0, 1, 1, 0));
        assertThat(jdbc.queryForObject("SELECT state FROM item WHERE supplier = ? AND source_id = 'A-2'",
                String.class, acme)).isEqualTo("INACTIVE");
    }

    @Autowired
    org.springframework.transaction.PlatformTransactionManager transactionManager;
    @Autowired
    dev.ingestor.outbox.OutboxWriter outboxWriter;
    @Autowired
    dev.ingestor.validation.QuarantineWriter quarantineWriter;
    @Autowired
    dev.ingestor.config.KafkaSettings kafkaSettings;

    private org.springframework.transaction.support.TransactionTemplate transactions() {
        return new org.springframework.transaction.support.TransactionTemplate(transactionManager);
    }

    @Autowired
    ItemStore items;

    @Test
    void anEffectWhoseEventCannotBeWrittenIsNotKeptEvenWithoutACallersTransaction() {
        String id = "N-" + UUID.randomUUID();
        DeliveryAdvice advice = new DeliveryAdvice(id, 1L, "S", 1, LocalDate.of(2026, 12, 1), Map.of());
        jdbc.execute("ALTER TABLE outbox ADD CONSTRAINT no_item_events CHECK (topic <> 'ingestor.items') NOT VALID");
        try {
            assertThatThrownBy(() -> items.apply("ACME", UUID.randomUUID(), "ingestor.items", List.of(advice)))
                    .isInstanceOf(DataIntegrityViolationException.class);
        } finally {
            jdbc.execute("ALTER TABLE outbox DROP CONSTRAINT no_item_events");
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item WHERE source_id = ?", Long.class, id)).isZero();
        // and with the outbox writable again, the same record is a new item, not a REPLAY of a lost effect
        assertThat(items.apply("ACME", UUID.randomUUID(), "ingestor.items", List.of(advice)).outcomeOf("ACME", id))
                .isEqualTo(RecordOutcome.ACCEPTED);
    }

    /**
     * The statement makes each event's payload as text from the stored record: whatever a supplier put in its ids
     * and fields (quotes, backslashes, control characters, line separators, characters outside the BMP), the
     * payload is one JSON document that gives them back exactly, and its record is the item's record.
     */
    @Test
    void anEventsPayloadIsJsonWhateverTheSupplierWroteInItsRecord() throws Exception {
        String hostile = "q\"uote\\back\nline\u2028sep\u0001ctl\ud83d\ude00</script>";
        String id = "H-" + UUID.randomUUID() + hostile;
        UUID job = UUID.randomUUID();
        DeliveryAdvice advice = new DeliveryAdvice(id, 7L, hostile, 3, LocalDate.of(2026, 12, 1),
                Map.of("note", hostile));
        assertThat(items.apply("ACME", job, "ingestor.items", List.of(advice)).outcomeOf("ACME", id))
                .isEqualTo(RecordOutcome.ACCEPTED);

        String payload = jdbc.queryForObject("SELECT payload FROM outbox_all WHERE event_key = ?", String.class,
                "ACME:" + id);
        String stored = jdbc.queryForObject("SELECT record FROM item WHERE supplier = 'ACME' AND source_id = ?",
                String.class, id);
        JsonNode event = JSON.readTree(payload);
        assertThat(event.get("source_id").asString()).isEqualTo(id);
        assertThat(event.get("supplier").asString()).isEqualTo("ACME");
        assertThat(event.get("job_id").asString()).isEqualTo(job.toString());
        assertThat(event.get("source_version").asLong()).isEqualTo(7);
        assertThat(event.get("revision").asLong()).isEqualTo(1);
        assertThat(event.get("outcome").asString()).isEqualTo("ACCEPTED");
        assertThat(event.get("record").get("note").asString()).isEqualTo(hostile);
        assertThat(event.get("record").get("sku").asString()).isEqualTo(hostile);
        assertThat(event.get("record")).isEqualTo(JSON.readTree(stored));
        // PostgreSQL reads it as JSON too, and the stored record is the text that was hashed
        assertThat(jdbc.queryForObject("SELECT payload::jsonb->'record'->>'note' FROM outbox_all WHERE event_key = ?",
                String.class, "ACME:" + id)).isEqualTo(hostile);
        assertThat(stored).isEqualTo(advice.canonicalJson());
        // an unversioned record gives a JSON null, not a missing or broken field
        String plain = "P-" + UUID.randomUUID();
        items.apply("ACME", job, "ingestor.items",
                List.of(new DeliveryAdvice(plain, null, "S", 1, LocalDate.of(2026, 12, 1), Map.of())));
        JsonNode unversioned = JSON
                .readTree(jdbc.queryForObject("SELECT payload FROM outbox_all WHERE event_key = ?", String.class,
                        "ACME:" + plain));
        assertThat(unversioned.get("source_version").isNull()).isTrue();
    }

    /**
     * A job's batch over an existing item and a new one, while a transaction of several statements (a group of small
     * files) has locked the existing item and is about to write the new one: the batch creates the new item and
     * waits for the locked one, the group's write waits for the batch, and PostgreSQL ends the batch (it waited
     * first) to break the deadlock. The batch is committed again at once, waits for the group this time, and applies
     * over both; the group completes.
     */
    @Test
    void aJobsBatchEndedToBreakADeadlockWithAGroupIsCommittedAgain() throws Exception {
        String suffix = UUID.randomUUID().toString();
        // the new item sorts before the existing one: the batch's statement would write it first
        String fresh = "LOCK-A-" + suffix;
        String existing = "LOCK-B-" + suffix;
        items.apply("ACME", UUID.randomUUID(), kafkaSettings.getItemsTopic(),
                List.of(new DeliveryAdvice(existing, null, "S", 1, LocalDate.of(2026, 12, 1), Map.of())));
        java.util.concurrent.CountDownLatch locked = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch write = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger groupBackend = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
        try (dev.ingestor.support.CapturedLogs logs = dev.ingestor.support.CapturedLogs.of("dev.ingestor.processing")) {
            java.util.concurrent.Future<?> group = threads.submit(() -> transactions().executeWithoutResult(s -> {
                items.lockInOrder(Map.of("ACME", List.of(fresh, existing)));
                groupBackend.set(jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class));
                locked.countDown();
                try {
                    write.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                items.apply("ACME", UUID.randomUUID(), kafkaSettings.getItemsTopic(),
                        List.of(new DeliveryAdvice(fresh, null, "S", 7, LocalDate.of(2026, 12, 1), Map.of())));
            }));
            assertThat(locked.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            java.util.concurrent.Future<ItemApplier.Applied> batch = threads.submit(() -> applier.applyJob(
                    job(UUID.randomUUID(), "ACME", 0), 0, List.of(record(1, fresh), record(2, existing)).iterator(),
                    10, recordNo -> false,
                    (apply, from, position, last) -> transactions().execute(s -> apply.get())));
            await().atMost(Duration.ofSeconds(30)).until(() -> blockedBy(groupBackend.get()) != null);
            write.countDown();

            group.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(batch.get(30, java.util.concurrent.TimeUnit.SECONDS).counts().updated()).isEqualTo(2);
            assertThat(logs.count("ended to break a deadlock")).as("the batch was ended once").isEqualTo(1);
        } finally {
            write.countDown();
            threads.shutdownNow();
        }
        assertThat(jdbc.queryForList("SELECT source_id || ' r' || revision FROM item WHERE source_id IN (?, ?)"
                + " ORDER BY source_id", String.class, fresh, existing)).containsExactly(fresh + " r2",
                        existing + " r2");
    }

    private static ImportJob job(UUID id, String supplier, long recordsDone) {
        return new ImportJob(id, supplier, JobState.PROCESSING, null, "f", 0, "test", null, null, 0, null,
                RecordCounts.NONE, null, recordsDone, null, null, null, null, false);
    }

    private static RawRecord record(long index, String sourceId) {
        return new RawRecord(index, index + 1, Map.of("source_id", sourceId, "source_version", String.valueOf(index),
                "sku", "S", "quantity", "1", "delivery_date", "2026-12-01"), null);
    }

    private static RawRecord versioned(long index, String sourceId, long version) {
        return new RawRecord(index, index + 1, Map.of("source_id", sourceId, "source_version", String.valueOf(version),
                "sku", "S", "quantity", "1", "delivery_date", "2026-12-01"), null);
    }

    private static RawRecord bad(long index) {
        return new RawRecord(index, index + 1, Map.of("source_id", "X", "sku", "S", "quantity", "many",
                "delivery_date", "2026-12-01"), null);
    }
}
