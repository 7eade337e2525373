package dev.ingestor.operations;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import dev.ingestor.config.RetentionSettings;
import dev.ingestor.job.JobCounts;
import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Retention of the items' history keeps every item's current version however old, and the job counts stay exact
 * when retention deletes jobs. Batches of 2 rows, so a handful of versions takes several statements.
 */
class ItemHistoryRetentionTest extends IngestorTestSupport {

    @Autowired
    ItemHistoryRetention history;
    @Autowired
    Housekeeping housekeeping;
    @Autowired
    RetentionSettings retention;
    @Autowired
    JobCounts counts;

    private int sharedBatchSize;
    private boolean timerWasRunning;

    @BeforeEach
    void smallBatchesAndNoTimer() throws Exception {
        assertThat(retention.getItemVersions()).isEqualTo(Duration.ofDays(365));
        sharedBatchSize = retention.getBatchSize();
        retention.setBatchSize(2);
        timerWasRunning = camelContext.getRouteController().getRouteStatus("housekeeping").isStarted();
        camelContext.getRouteController().stopRoute("housekeeping");
        // each test's first run reads every old version, as an instance's first run does
        history.startOver();
    }

    @AfterEach
    void giveTheSharedContextBack() throws Exception {
        retention.setBatchSize(sharedBatchSize);
        if (timerWasRunning) {
            camelContext.getRouteController().startRoute("housekeeping");
        }
    }

    /** An item of ACME at revision {@code current}, with a version per revision recorded {@code daysAgo} each. */
    private void item(String sourceId, int... daysAgo) {
        int current = daysAgo.length;
        jdbc.update("INSERT INTO item (supplier, source_id, record_hash, record, job_id, revision)"
                + " VALUES ('ACME', ?, repeat('a', 64), '{}', gen_random_uuid(), ?)", sourceId, current);
        for (int revision = 1; revision <= current; revision++) {
            jdbc.update("INSERT INTO item_version (supplier, source_id, revision, outcome, state, record, job_id,"
                    + " event_id, recorded_at) VALUES ('ACME', ?, ?, 'UPDATED', 'ACTIVE', '{}', gen_random_uuid(),"
                    + " gen_random_uuid(), now() - make_interval(days => ?))", sourceId, revision,
                    daysAgo[revision - 1]);
        }
    }

    private List<Long> revisions(String sourceId) {
        return jdbc.queryForList("SELECT revision FROM item_version WHERE supplier = 'ACME' AND source_id = ?"
                + " ORDER BY revision", Long.class, sourceId);
    }

    @Test
    void oldVersionsGoButTheCurrentVersionStaysHoweverOld() throws Exception {
        item("all-old", 500, 450, 400);
        item("old-then-new", 500, 400, 10);
        item("only-one-old", 700);
        item("all-young", 30, 20);
        // versions of the same moment (one batch of effects) on both sides of a batch's end
        for (int i = 0; i < 5; i++) {
            item("tied-" + i, 600, 600);
        }

        long deleted = history.retain();

        assertThat(revisions("all-old")).containsExactly(3L);
        assertThat(revisions("old-then-new")).containsExactly(3L);
        assertThat(revisions("only-one-old")).containsExactly(1L);
        assertThat(revisions("all-young")).containsExactly(1L, 2L);
        for (int i = 0; i < 5; i++) {
            assertThat(revisions("tied-" + i)).containsExactly(2L);
        }
        assertThat(deleted).isEqualTo(2 + 2 + 5);
        assertThat(history.retain()).as("nothing left to delete").isZero();
        // the versions API still answers the item: its history starts with the kept version
        assertThat(get("/api/v1/suppliers/ACME/items/all-old/versions", ACME_KEY).body())
                .contains("\"revision\":3");
    }

    @Test
    void jobCountsStayExactWhenRetentionDeletesJobs() {
        jdbc.update("""
                INSERT INTO import_job (id, supplier, state, key, file_name, size, source, request_key, updated_at)
                SELECT gen_random_uuid(), 'ACME', CASE WHEN n % 2 = 0 THEN 'COMPLETED' ELSE 'FAILED' END,
                       'ACME:' || md5(n::text) || md5(n::text), 'f.csv', 1, 'test', 'r-' || n,
                       now() - make_interval(days => CASE WHEN n <= 7 THEN 400 ELSE 1 END)
                FROM generate_series(1, 12) n""");
        counts.fold();

        Housekeeping.RetentionReport report = housekeeping.retain();

        assertThat(report.jobs()).isEqualTo(7);
        assertThat(counts.bySupplierAndState()).isEqualTo(java.util.Map.of("ACME",
                java.util.Map.of(dev.ingestor.job.JobState.COMPLETED, 3L, dev.ingestor.job.JobState.FAILED, 2L)));
        foldUntilNoDeltas(counts::fold, "job_count_delta");
        assertThat(jdbc.queryForObject("SELECT sum(jobs) FROM job_count", Long.class)).isEqualTo(5);
    }

    /**
     * The housekeeping route's steps are independent: a retention round the database refuses every time (here a
     * trigger that refuses to delete a job) is logged, and the steps after it (the items' history) still run.
     */
    @Test
    void aRetentionRoundThatFailsDoesNotStopTheStepsAfterIt() throws Exception {
        item("behind-a-failing-round", 500, 10);
        jdbc.update(
                "INSERT INTO import_job (id, supplier, state, key, file_name, size, source, request_key, updated_at)"
                        + " VALUES (gen_random_uuid(), 'ACME', 'COMPLETED', 'ACME:' || md5('due') || md5('due'), 'f.csv', 1,"
                        + " 'test', 'r-due', now() - interval '400 days')");
        // not in pg_temp: the route's statements may run on another pooled connection than this one
        jdbc.execute("CREATE FUNCTION refuse_retention() RETURNS trigger LANGUAGE plpgsql AS"
                + " $$BEGIN RAISE EXCEPTION 'test: retention refused'; END$$");
        jdbc.execute("CREATE TRIGGER refuse_retention BEFORE DELETE ON import_job FOR EACH ROW"
                + " EXECUTE FUNCTION refuse_retention()");
        try {
            // one run of the route's steps, as its timer runs them (whose first run is 10 s after the start)
            camelContext.getRouteController().startRoute("housekeeping");
            org.apache.camel.Exchange run = new org.apache.camel.support.DefaultExchange(camelContext);
            camelContext.getRoute("housekeeping").getConsumer().getProcessor().process(run);
            camelContext.getRouteController().stopRoute("housekeeping");

            assertThat(run.getException()).as("each step's failure is handled").isNull();
            assertThat(jdbc.queryForObject("SELECT count(*) FROM import_job WHERE request_key = 'r-due'", Long.class))
                    .as("the refused round deleted nothing").isEqualTo(1);
            assertThat(revisions("behind-a-failing-round")).as("the items' history ran after it").containsExactly(2L);
        } finally {
            jdbc.execute("DROP TRIGGER refuse_retention ON import_job");
            jdbc.execute("DROP FUNCTION refuse_retention()");
            jdbc.update("DELETE FROM import_job WHERE request_key = 'r-due'");
        }
    }

    /**
     * After an instance's first run, a run reads only what can have become deletable since the run before: versions
     * that crossed the cutoff since, and the items that got a new version since. The versions of items unchanged for
     * longer than the retention, which stay, are not read again.
     */
    @Test
    void aLaterRunReadsWhatChangedNotTheYearsOfHistoryKept() throws Exception {
        for (int i = 0; i < 5; i++) {
            item("unchanged-" + i, 700);
        }
        item("changed-later", 500, 400);
        ItemHistoryRetention.Report first = history.run();
        assertThat(first.read()).isEqualTo(7);
        assertThat(first.deleted()).isEqualTo(1);

        ItemHistoryRetention.Report idle = history.run();
        assertThat(idle.read()).as("nothing crossed the cutoff and nothing changed").isZero();

        // an item changes now: its version of 400 days ago is no longer current
        jdbc.update("UPDATE item SET revision = 3 WHERE supplier = 'ACME' AND source_id = 'changed-later'");
        jdbc.update("INSERT INTO item_version (supplier, source_id, revision, outcome, state, record, job_id, event_id)"
                + " VALUES ('ACME', 'changed-later', 3, 'UPDATED', 'ACTIVE', '{}', gen_random_uuid(),"
                + " gen_random_uuid())");
        // and a version that was young enough at the last run crosses the cutoff before the next
        jdbc.update("INSERT INTO item (supplier, source_id, record_hash, record, job_id, revision)"
                + " VALUES ('ACME', 'crossing', repeat('a', 64), '{}', gen_random_uuid(), 2)");
        jdbc.update("INSERT INTO item_version (supplier, source_id, revision, outcome, state, record, job_id,"
                + " event_id, recorded_at) VALUES ('ACME', 'crossing', 1, 'UPDATED', 'ACTIVE', '{}', gen_random_uuid(),"
                + " gen_random_uuid(), now() - interval '365 days' + interval '1 second'),"
                + " ('ACME', 'crossing', 2, 'UPDATED', 'ACTIVE', '{}', gen_random_uuid(), gen_random_uuid(),"
                + " now() - interval '10 days')");
        history.run();
        Thread.sleep(1500);
        ItemHistoryRetention.Report next = history.run();
        assertThat(revisions("changed-later")).containsExactly(3L);
        assertThat(revisions("crossing")).containsExactly(2L);
        assertThat(next.read()).as("what changed or crossed, not the unchanged items' versions").isLessThanOrEqualTo(3);
        for (int i = 0; i < 5; i++) {
            assertThat(revisions("unchanged-" + i)).containsExactly(1L);
        }
    }

    /** A batch reads the old versions through item_version_recorded from where the one before ended. */
    @Test
    void aBatchReadsThroughTheIndexOfTimeRecorded() {
        jdbc.update("""
                INSERT INTO item_version (supplier, source_id, revision, outcome, state, record, job_id, event_id,
                                          recorded_at)
                SELECT 'ACME', 'i-' || (n / 3), n % 3, 'UPDATED', 'ACTIVE', '{}', gen_random_uuid(), gen_random_uuid(),
                       timestamptz '2024-01-01' + (n / 50) * interval '1 minute'
                FROM generate_series(1, 100000) n""");
        jdbc.execute("ANALYZE item_version");
        java.sql.Timestamp at = java.sql.Timestamp.from(java.time.Instant.parse("2024-01-20T00:00:00Z"));
        String plan = String.join("\n", jdbc.queryForList("EXPLAIN " + ItemHistoryRetention.BATCH, String.class,
                java.sql.Timestamp.from(java.time.Instant.parse("2025-01-01T00:00:00Z")), at, at, "ACME", "i-5", 1L,
                1000));
        assertThat(plan).as(plan).contains("item_version_recorded").doesNotContain("Seq Scan on item_version");
    }
}
