package dev.ingestor.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.job.ImportJob;
import dev.ingestor.job.JobClaims;
import dev.ingestor.processing.SmallFileGroup;
import dev.ingestor.support.CapturedLogs;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import org.apache.camel.Exchange;
import org.apache.camel.Route;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Small files that wait together are validated and processed as one group, in one transaction, and each still
 * comes out exactly as it would alone: its own quarantine, effects, events, counts and end state. A file that is
 * not plainly fine goes the one-file way, and a group whose transaction fails is done again one file at a time, so
 * a poison file fails alone. The files are taken in while the validation workers are suspended, so that they wait
 * together and the first worker to resume claims them as one group.
 */
class SmallFileGroupTest extends IngestorTestSupport {

    private static final String HEADER = "source_id,source_version,sku,quantity,delivery_date\n";

    @AfterEach
    void removeFault() {
        resumeValidation();
        jdbc.execute("DROP TRIGGER IF EXISTS refuse_poison ON item");
        jdbc.execute("DROP FUNCTION IF EXISTS refuse_poison()");
    }

    private UUID ingest(String name, String content) {
        return intake("ACME", name, content);
    }

    /** How many files went in groups with {@code outcome} (completed, or alone), by the application's own counter. */
    private double groupFiles(String outcome) {
        io.micrometer.core.instrument.Counter counter = meters.find("ingestor.pipeline.group.files")
                .tag("outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    @Autowired
    io.micrometer.core.instrument.MeterRegistry meters;

    private List<String> validationWorkers() {
        return camelContext.getRoutes().stream().map(Route::getRouteId).filter(id -> id.matches("validation-\\d+"))
                .toList();
    }

    private void suspendValidation() throws Exception {
        for (String worker : validationWorkers()) {
            camelContext.getRouteController().suspendRoute(worker);
        }
    }

    /** One worker first, so that no sibling's claim splits the group between them. */
    private void resumeOneWorker() throws Exception {
        camelContext.getRouteController().resumeRoute(validationWorkers().get(0));
    }

    private void resumeValidation() {
        for (String worker : validationWorkers()) {
            try {
                camelContext.getRouteController().resumeRoute(worker);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private Map<String, Object> job(UUID id) {
        return jdbc.queryForMap(
                "SELECT state, total, quarantined, accepted, updated, replayed, records_done, lease_owner,"
                        + " (SELECT count(*) FROM job_record r WHERE r.job_id = j.id) AS kept,"
                        + " (SELECT count(*) FROM outbox_all o WHERE o.payload LIKE '%' || j.id || '%') AS events FROM import_job j WHERE id = ?",
                id);
    }

    private static boolean names(String line, UUID job) {
        return line.contains("job=" + job + " ");
    }

    @Test
    void smallFilesThatWaitTogetherAreDoneAsOneGroupEachWithItsOwnOutcome() throws Exception {
        suspendValidation();
        double completedBefore = groupFiles("completed");
        try (CapturedLogs logs = CapturedLogs.of("dev.ingestor.processing")) {
            // in this order: G-1 first at version 1, then at version 2 in a later file, then again at 1 (a replay)
            UUID first = ingest("first.csv", HEADER + "G-1,1,SKU,1,2026-12-01\nG-2,1,SKU,1,2026-12-01\n");
            UUID bad = ingest("bad.csv", HEADER + "G-3,1,SKU,not-a-number,2026-12-01\nG-4,1,SKU,2,2026-12-01\n");
            UUID newer = ingest("newer.csv", HEADER + "G-1,2,SKU,5,2026-12-01\n");
            UUID older = ingest("older.csv", HEADER + "G-1,1,SKU,1,2026-12-01\n");
            // not plainly fine: it goes the one-file way, to the rejection a person understands
            UUID unreadable = ingest("unreadable.csv", "no,header,we,know\n1,2,3,4\n");
            resumeOneWorker();
            await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                    "SELECT count(*) FROM import_job WHERE state IN ('COMPLETED', 'COMPLETED_WITH_ERRORS', 'REJECTED')",
                    Long.class) == 5);

            assertThat(job(first)).containsEntry("state", "COMPLETED").containsEntry("total", 2L)
                    .containsEntry("accepted", 2L)
                    .containsEntry("records_done", 2L).containsEntry("events", 2L).containsEntry("lease_owner", null);
            assertThat(job(bad)).containsEntry("state", "COMPLETED_WITH_ERRORS").containsEntry("total", 2L)
                    .containsEntry("quarantined", 1L).containsEntry("accepted", 1L).containsEntry("kept", 1L)
                    .containsEntry("events", 1L);
            assertThat(job(newer)).containsEntry("state", "COMPLETED").containsEntry("updated", 1L)
                    .containsEntry("events", 1L);
            assertThat(job(older)).containsEntry("state", "COMPLETED").containsEntry("replayed", 1L)
                    .containsEntry("events", 0L);
            assertThat(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, unreadable))
                    .isEqualTo("REJECTED");
            assertThat(jdbc.queryForObject("SELECT source_version FROM item WHERE source_id = 'G-1'", Long.class))
                    .isEqualTo(2L);
            // the four readable files went as one group, read once; none of them was processed alone
            for (UUID grouped : List.of(first, bad, newer, older)) {
                assertThat(logs.messages()).filteredOn(m -> names(m, grouped)).singleElement().asString()
                        .endsWith("reads=1 group=4");
            }
            assertThat(logs.messages()).noneMatch(m -> names(m, unreadable));
            assertThat(groupFiles("completed") - completedBefore).isEqualTo(4.0);
        }
    }

    /**
     * A file of the group was taken over while the group worked (a sibling worker of this instance, which shares
     * the lease owner, after the lease lapsed): the group commits nothing, and of the files left to go on alone,
     * that one is left to the worker that holds it. Run by hand on jobs the test claims as a worker would.
     */
    @Test
    void aGroupOneOfWhoseFilesWasTakenOverCommitsNothingAndLeavesThatFileToItsHolder() throws Exception {
        suspendValidation();
        UUID a = ingest("a.csv", HEADER + "T-1,1,SKU,1,2026-12-01\n");
        UUID b = ingest("b.csv", HEADER + "T-2,1,SKU,1,2026-12-01\n");
        UUID c = ingest("c.csv", HEADER + "T-3,1,SKU,1,2026-12-01\n");
        List<ImportJob> claimed = claims.claimJobsForValidation();
        assertThat(claimed).extracting(ImportJob::id).containsExactly(a, b, c);
        jdbc.update("UPDATE import_job SET takeovers = 1 WHERE id = ?", b);

        Exchange exchange = new DefaultExchange(camelContext);
        List<ImportJob> left = group.run(claimed, exchange);

        assertThat(left).extracting(ImportJob::id).containsExactly(a, b, c);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item WHERE source_id LIKE 'T-%'", Long.class)).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_all", Long.class)).isZero();
        assertThat(jdbc.queryForList("SELECT DISTINCT state FROM import_job", String.class))
                .containsExactly("VALIDATING");
        Boolean grouped = exchange.getProperty(JobClaims.GROUPED, Boolean.class);
        assertThat(claims.stillHeldFromGroup(claimed.get(0), grouped)).isTrue();
        assertThat(claims.stillHeldFromGroup(claimed.get(1), grouped)).as("taken over meanwhile").isFalse();
        assertThat(claims.stillHeldFromGroup(claimed.get(2), grouped)).isTrue();
        // a job claimed alone (it may be a takeover itself) goes on without the check
        assertThat(claims.stillHeldFromGroup(claimed.get(1), null)).isTrue();
        // a database that cannot answer the check does not strand the job: it goes on, and validate-job's own
        // guards and redelivery decide (a failed check left it held until its lease lapsed, in the outage test)
        jdbc.execute("""
                CREATE FUNCTION refuse_renewal() RETURNS trigger AS $$
                BEGIN
                  RAISE EXCEPTION 'the database cannot answer (injected)';
                END $$ LANGUAGE plpgsql""");
        jdbc.execute("CREATE TRIGGER refuse_renewal BEFORE UPDATE ON import_job FOR EACH ROW"
                + " WHEN (OLD.id = '" + c + "') EXECUTE FUNCTION refuse_renewal()");
        try {
            assertThat(claims.stillHeldFromGroup(claimed.get(2), grouped)).isTrue();
        } finally {
            jdbc.execute("DROP TRIGGER refuse_renewal ON import_job");
            jdbc.execute("DROP FUNCTION refuse_renewal()");
        }
    }

    @Autowired
    JobClaims claims;
    @Autowired
    SmallFileGroup group;

    /**
     * Two groups over the same existing items in other orders (one applies the A items, then the B items; the other
     * the B items, then the A items), run at the same time while each statement holds its locks a moment: each group
     * locks every existing item it touches first, in the one order, so the second waits for the first instead of
     * deadlocking, and both complete as groups with every effect once. A group's files share statements, and one
     * statement locks its items in the one order by itself: so each group's second file starts with an item of its
     * first (unchanged, a REPLAY), which starts a second statement, and each group applies in two statements, the
     * first file's items and then the second's.
     */
    // slow tier: many groups racing, and the deadlock statistics waited for
    @SlowTest
    @Test
    void twoGroupsOverTheSameItemsInOtherOrdersWaitForEachOtherInsteadOfDeadlocking() throws Exception {
        int items = 500;
        StringBuilder all = new StringBuilder(HEADER);
        for (int i = 0; i < 2 * items; i++) {
            all.append(String.format("%s-%03d,,SKU,1,2026-12-01%n", i < items ? "A" : "B", i % items));
        }
        UUID base = ingest("base.csv", all.toString());
        await().atMost(Duration.ofSeconds(30)).until(() -> "COMPLETED".equals(
                jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, base)));
        suspendValidation();
        UUID a1 = ingest("a1.csv", HEADER + half("A", items, 2));
        UUID b1 = ingest("b1.csv", HEADER + line("A", 0, 2) + half("B", items, 2));
        UUID b2 = ingest("b2.csv", HEADER + half("B", items, 3));
        UUID a2 = ingest("a2.csv", HEADER + line("B", 0, 3) + half("A", items, 3));
        // three of these files do not fit in one group (ingestor.pipeline.one-pass-max-size is 64KB in the tests)
        List<ImportJob> first = claims.claimJobsForValidation();
        List<ImportJob> second = claims.claimJobsForValidation();
        assertThat(first).extracting(ImportJob::id).containsExactly(a1, b1);
        assertThat(second).extracting(ImportJob::id).containsExactly(b2, a2);
        double completedBefore = groupFiles("completed");
        long deadlocksBefore = deadlocksSoFar();
        jdbc.execute("""
                CREATE FUNCTION hold_item_locks() RETURNS trigger AS $$
                BEGIN
                  PERFORM pg_sleep(0.5);
                  RETURN NULL;
                END $$ LANGUAGE plpgsql""");
        jdbc.execute("CREATE TRIGGER hold_item_locks AFTER INSERT OR UPDATE ON item FOR EACH STATEMENT"
                + " EXECUTE FUNCTION hold_item_locks()");
        try {
            java.util.concurrent.CyclicBarrier together = new java.util.concurrent.CyclicBarrier(2);
            java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(2);
            try {
                List<java.util.concurrent.Future<List<ImportJob>>> runs = new java.util.ArrayList<>();
                for (List<ImportJob> jobs : List.of(first, second)) {
                    runs.add(threads.submit(() -> {
                        together.await();
                        return group.run(jobs, new DefaultExchange(camelContext));
                    }));
                }
                for (java.util.concurrent.Future<List<ImportJob>> run : runs) {
                    assertThat(run.get(60, java.util.concurrent.TimeUnit.SECONDS)).as("files left to go alone")
                            .isEmpty();
                }
            } finally {
                threads.shutdownNow();
            }
        } finally {
            jdbc.execute("DROP TRIGGER IF EXISTS hold_item_locks ON item");
            jdbc.execute("DROP FUNCTION IF EXISTS hold_item_locks()");
        }
        assertThat(groupFiles("completed") - completedBefore).isEqualTo(4.0);
        assertThat(deadlocksSoFar() - deadlocksBefore).as("deadlocks between the groups").isZero();
        // every item: its first effect, then one effect of each group
        assertThat(jdbc.queryForList("SELECT DISTINCT revision FROM item", Long.class)).containsExactly(3L);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item_version", Long.class)).isEqualTo(6L * items);
    }

    /** The lines of one half's items, {@code prefix}-000 on, in descending order, all with {@code quantity}. */
    private static String half(String prefix, int items, int quantity) {
        StringBuilder csv = new StringBuilder();
        for (int i = items - 1; i >= 0; i--) {
            csv.append(line(prefix, i, quantity));
        }
        return csv.toString();
    }

    private static String line(String prefix, int item, int quantity) {
        return String.format("%s-%03d,,SKU-PADDED-TO-FILL-HALF-A-GROUP,%d,2026-12-01%n", prefix, item, quantity);
    }

    @Test
    void aFileTheDatabaseRefusesFailsAloneAndTheRestOfItsGroupCompletes() throws Exception {
        jdbc.execute("""
                CREATE FUNCTION refuse_poison() RETURNS trigger AS $$
                BEGIN
                  IF NEW.source_id = 'POISON' THEN
                    RAISE EXCEPTION 'this record is refused (injected)';
                  END IF;
                  RETURN NEW;
                END $$ LANGUAGE plpgsql""");
        jdbc.execute(
                "CREATE TRIGGER refuse_poison BEFORE INSERT ON item FOR EACH ROW EXECUTE FUNCTION refuse_poison()");
        suspendValidation();
        double aloneBefore = groupFiles("alone");
        try (CapturedLogs logs = CapturedLogs.of("dev.ingestor.processing")) {
            UUID before = ingest("before.csv", HEADER + "P-1,1,SKU,1,2026-12-01\n");
            UUID poison = ingest("poison.csv", HEADER + "POISON,1,SKU,1,2026-12-01\n");
            UUID after = ingest("after.csv", HEADER + "P-2,1,SKU,1,2026-12-01\n");
            resumeOneWorker();
            await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                    "SELECT count(*) FROM import_job WHERE state IN ('COMPLETED', 'FAILED')", Long.class) == 3);

            assertThat(job(before)).containsEntry("state", "COMPLETED").containsEntry("accepted", 1L)
                    .containsEntry("events", 1L);
            assertThat(job(after)).containsEntry("state", "COMPLETED").containsEntry("accepted", 1L)
                    .containsEntry("events", 1L);
            assertThat(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, poison))
                    .isEqualTo("FAILED");
            // one dead letter, for the poison file alone, from the stage that ran it alone
            assertThat(jdbc.queryForList("SELECT job_id FROM dead_letter", UUID.class)).containsExactly(poison);
            assertThat(jdbc.queryForObject("SELECT count(*) FROM item WHERE source_id IN ('P-1', 'P-2')", Long.class))
                    .isEqualTo(2L);
            assertThat(logs.messages()).anyMatch(m -> m.startsWith("group of 3 small files not completed"))
                    .anyMatch(m -> names(m, before) && m.endsWith("reads=1"))
                    .anyMatch(m -> names(m, after) && m.endsWith("reads=1"));
            assertThat(groupFiles("alone") - aloneBefore).isEqualTo(3.0);
        }
    }
}
