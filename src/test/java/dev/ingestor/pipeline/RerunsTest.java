package dev.ingestor.pipeline;

import static dev.ingestor.processing.RecordOutcome.ACCEPTED;
import static dev.ingestor.processing.RecordOutcome.REPLAY;
import static dev.ingestor.processing.RecordOutcome.UPDATED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.ingestor.intake.RawStore;
import dev.ingestor.job.ContentKey;
import dev.ingestor.processing.ItemStore;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.validation.DeliveryAdvice;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A job an operator sends round again (reprocess, re-validate, a dead letter replayed) repeats
 * nothing and undoes nothing, for items without a version too, where the content decides: its records do not bring
 * an item back from what a later job wrote, and a file that names an item twice does not write it twice again. On
 * the real PostgreSQL, through the admin API and the stages.
 */
class RerunsTest extends IngestorTestSupport {

    @Autowired
    ItemStore items;

    @Autowired
    RawStore rawStore;

    private static final String HEADER = "source_id,sku,quantity,delivery_date\n";

    /** Two files of one item received one after the other, each completed: the older job's id, then the later's. */
    private List<UUID> olderThenLater(String item) {
        UUID older = intake("ACME", "older.csv", HEADER + item + ",OLD,1,2026-12-01\n");
        awaitState(older, "COMPLETED");
        UUID later = intake("ACME", "later.csv", HEADER + item + ",NEW,1,2026-12-01\n");
        awaitState(later, "COMPLETED");
        return List.of(older, later);
    }

    @Test
    void aReprocessedJobDoesNotBringAnItemBackFromALaterJobsContent() throws Exception {
        String item = "RR-" + UUID.randomUUID();
        UUID older = olderThenLater(item).get(0);
        assertThat(events(item)).isEqualTo(2);

        for (String action : List.of("reprocess", "revalidate")) {
            send("/api/v1/admin/jobs/" + older + "/" + action);
            assertTheLaterContentStood(older, item, action);
        }
    }

    /**
     * A job that failed in processing and is resumed from its checkpoint once a later job has written its items (the
     * failure left where the stage leaves it: FAILED, its checkpoint, a processing dead letter) is a re-run too: its
     * records after the checkpoint do not bring an item back, whether its letter is replayed or its supplier's failed
     * jobs are retried.
     */
    @Test
    void aJobResumedAfterItsDeadLetterDoesNotBringAnItemBackFromALaterJobsContent() throws Exception {
        String item = "RD-" + UUID.randomUUID();
        UUID older = olderThenLater(item).get(0);
        for (String action : List.of("replay", "retry-failed")) {
            jdbc.update("UPDATE import_job SET state = 'FAILED', records_done = 0, accepted = 0, updated = 0,"
                    + " replayed = 0, rerun = false, error = 'gone between two statements' WHERE id = ?", older);
            Long letter = jdbc.queryForObject("INSERT INTO dead_letter (job_id, stage, exception, attempts)"
                    + " VALUES (?, 'processing', 'org.postgresql.util.PSQLException', 5) RETURNING id", Long.class,
                    older);
            send(action.equals("replay")
                    ? "/api/v1/admin/dead-letters/" + letter + "/replay"
                    : "/api/v1/admin/suppliers/ACME/retry-failed");
            assertTheLaterContentStood(older, item, action);
        }
    }

    /** The older job, sent round by {@code action}, completed and left the later job's content, with no event. */
    private void assertTheLaterContentStood(UUID older, String item, String action) {
        awaitState(older, "COMPLETED");
        assertThat(sku(item)).as(action).isEqualTo("NEW");
        assertThat(events(item)).as(action).isEqualTo(2);
        assertThat(jdbc.queryForObject("SELECT replayed FROM import_job WHERE id = ?", Long.class, older))
                .as(action).isEqualTo(1);
    }

    /**
     * A job re-validated once its file can no longer be read (damaged on disk, or its supplier's settings changed) may
     * have applied its records in its earlier run: it fails with a dead letter, not REJECTED (which says no effect).
     */
    @Test
    void aReValidatedJobWhoseFileCanNoLongerBeReadFailsNotRejected() throws Exception {
        reValidatedOnceUnreadable(false);
        // the same job reprocessed, its reprocess failed before its first batch: what it applied before still stands
        reValidatedOnceUnreadable(true);
    }

    private void reValidatedOnceUnreadable(boolean afterAFailedReprocess) throws Exception {
        String item = "RU-" + UUID.randomUUID();
        UUID job = intake("ACME", "damaged.csv", HEADER + item + ",S,1,2026-12-01\n");
        awaitState(job, "COMPLETED");
        if (afterAFailedReprocess) {
            send("/api/v1/admin/jobs/" + job + "/reprocess");
            awaitState(job, "COMPLETED");
            jdbc.update("UPDATE import_job SET state = 'FAILED', records_done = 0 WHERE id = ?", job);
        }
        String key = jdbc.queryForObject("SELECT key FROM import_job WHERE id = ?", String.class, job);
        Files.writeString(rawStore.pathOf(ContentKey.parse(key)), HEADER);

        send("/api/v1/admin/jobs/" + job + "/revalidate");
        awaitState(job, "FAILED");
        assertThat(jdbc.queryForObject("SELECT error FROM import_job WHERE id = ?", String.class, job))
                .contains("can no longer be read").contains("no records");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM dead_letter WHERE job_id = ? AND stage = 'validation'",
                Long.class, job)).isEqualTo(1);
        assertThat(sku(item)).isEqualTo("S");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM job_record WHERE job_id = ?", Long.class, job)).isZero();
        jdbc.update("DELETE FROM import_job WHERE id = ?", job);
    }

    /** A job that was REJECTED applied nothing: re-validated and still unreadable, it is REJECTED again. */
    @Test
    void aRejectedJobReValidatedIsRejectedAgainWithoutADeadLetter() throws Exception {
        // a header and no record; a column of its own keeps the bytes apart from other tests'
        UUID job = intake("ACME", "no-records.csv",
                HEADER.strip() + ",x" + UUID.randomUUID().toString().replace("-", "")
                        + "\n");
        awaitState(job, "REJECTED");
        send("/api/v1/admin/jobs/" + job + "/revalidate");
        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT state = 'REJECTED' AND rerun FROM import_job WHERE id = ?", Boolean.class, job));
        assertThat(jdbc.queryForObject("SELECT count(*) FROM dead_letter WHERE job_id = ?", Long.class, job)).isZero();
        jdbc.update("DELETE FROM import_job WHERE id = ?", job);
    }

    /** The later job gone (retention deletes jobs, not items), its content still stands against the earlier job. */
    @Test
    void aReprocessedJobKeepsALaterJobsContentAfterThatJobIsGone() throws Exception {
        String item = "RG-" + UUID.randomUUID();
        List<UUID> jobs = olderThenLater(item);
        UUID older = jobs.get(0);
        jdbc.update("DELETE FROM import_job WHERE id = ?", jobs.get(1));

        send("/api/v1/admin/jobs/" + older + "/reprocess");
        awaitState(older, "COMPLETED");
        assertThat(sku(item))
                .isEqualTo("NEW");
        assertThat(events(item)).isEqualTo(2);
    }

    /**
     * On the statement itself: a re-run's record over an item a job received after it wrote is a REPLAY, however the
     * writer's row fares; a first run's record is judged by content, as the version rules say, and a re-run's record
     * over an item an earlier job wrote is too.
     */
    @Test
    void aReRunsRecordMeetsTheLaterWritersContentAndAFirstRunsItsOwnRules() {
        String item = "RO-" + UUID.randomUUID();
        java.time.Instant now = java.time.Instant.now();
        ItemStore.Entry later = ItemStore.Entry.of("ACME", UUID.randomUUID(), now, advice(item, "NEW"), 1, false);
        assertThat(items.apply("ingestor.items", List.of(later)).outcomeOf("ACME", item)).isEqualTo(ACCEPTED);
        UUID earlierJob = UUID.randomUUID();
        ItemStore.Entry rerun = ItemStore.Entry.of("ACME", earlierJob, now.minusSeconds(60), advice(item, "OLD"), 1,
                true);
        assertThat(items.apply("ingestor.items", List.of(rerun)).outcomeOf("ACME", item)).isEqualTo(REPLAY);
        assertThat(sku(item)).isEqualTo("NEW");

        ItemStore.Entry firstRun = ItemStore.Entry.of("ACME", earlierJob, now.minusSeconds(60), advice(item, "OLD"), 1,
                false);
        assertThat(items.apply("ingestor.items", List.of(firstRun)).outcomeOf("ACME", item)).isEqualTo(UPDATED);
        ItemStore.Entry laterRerun = ItemStore.Entry.of("ACME", UUID.randomUUID(), now.plusSeconds(60),
                advice(item, "NEWEST"), 1, true);
        assertThat(items.apply("ingestor.items", List.of(laterRerun)).outcomeOf("ACME", item)).isEqualTo(UPDATED);
        assertThat(sku(item)).isEqualTo("NEWEST");
    }

    /**
     * When a writer was received is kept as that instant whatever the JVM's time zone: pgjdbc writes a Timestamp in an
     * array as local time without its offset, which the server reads in the session's zone.
     */
    @Test
    void aWritersArrivalIsKeptAsTheInstantItWasInAnyTimeZone() {
        String item = "RZ-" + UUID.randomUUID();
        java.time.Instant received = java.time.Instant.parse("2026-10-25T00:30:00.123456Z");
        java.util.TimeZone zone = java.util.TimeZone.getDefault();
        try {
            java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone("Europe/Berlin"));
            items.apply("ingestor.items", List.of(ItemStore.Entry.of("ACME", UUID.randomUUID(), received,
                    advice(item, "ANY"), 1, false)));
        } finally {
            java.util.TimeZone.setDefault(zone);
        }
        assertThat(jdbc.queryForObject("SELECT extract(epoch FROM job_received_at) FROM item WHERE supplier = 'ACME'"
                + " AND source_id = ?", java.math.BigDecimal.class, item))
                .isEqualByComparingTo(new java.math.BigDecimal("1792888200.123456"));
    }

    private String sku(String item) {
        return jdbc.queryForObject("SELECT record::jsonb->>'sku' FROM item WHERE supplier = 'ACME' AND source_id = ?",
                String.class, item);
    }

    private static DeliveryAdvice advice(String sourceId, String sku) {
        return new DeliveryAdvice(sourceId, null, sku, 1, java.time.LocalDate.parse("2026-12-01"), java.util.Map.of(),
                false);
    }

    @Test
    void aReprocessedFileThatNamesAnItemTwiceWritesItNoMore() throws Exception {
        String item = "RT-" + UUID.randomUUID();
        UUID job = intake("ACME", "twice.csv",
                HEADER + item + ",FIRST,1,2026-12-01\n" + item + ",SECOND,2,2026-12-01\n");
        awaitState(job, "COMPLETED");
        assertThat(events(item)).isEqualTo(2);

        send("/api/v1/admin/jobs/" + job + "/reprocess");
        awaitState(job, "COMPLETED");
        assertThat(events(item)).isEqualTo(2);
        assertThat(sku(item))
                .isEqualTo("SECOND");
        assertThat(jdbc.queryForObject("SELECT replayed FROM import_job WHERE id = ?", Long.class, job)).isEqualTo(2);
    }

    @Test
    void aReprocessedJobStillWritesWhatNoLaterJobChanged() throws Exception {
        String mine = "RM-" + UUID.randomUUID();
        String taken = "RO-" + UUID.randomUUID();
        UUID job = intake("ACME", "mine.csv", HEADER + mine + ",MINE,1,2026-12-01\n" + taken + ",MINE,1,2026-12-01\n");
        awaitState(job, "COMPLETED");
        // an item put back by hand to an earlier content, as an earlier job would have left it, and one a later job
        // changed: the re-run writes the first again, and leaves the second
        jdbc.update(
                "UPDATE item SET record = jsonb_set(record::jsonb, '{sku}', '\"EARLIER\"')::text, record_hash = 'x',"
                        + " job_id = ? WHERE supplier = 'ACME' AND source_id = ?",
                UUID.randomUUID(), mine);
        UUID later = intake("ACME", "later.csv", HEADER + taken + ",LATER,1,2026-12-01\n");
        awaitState(later, "COMPLETED");

        send("/api/v1/admin/jobs/" + job + "/reprocess");
        awaitState(job, "COMPLETED");
        assertThat(sku(mine))
                .isEqualTo("MINE");
        assertThat(sku(taken))
                .isEqualTo("LATER");
    }

    private long events(String sourceId) {
        return jdbc.queryForObject("SELECT count(*) FROM outbox_all WHERE topic = 'ingestor.items' AND event_key = ?",
                Long.class, "ACME:" + sourceId);
    }

    private void send(String path) throws Exception {
        HttpResponse<String> response = post(path, ADMIN_KEY, "application/json", new byte[0]);
        assertThat(response.statusCode()).as(path + " " + response.body()).isEqualTo(202);
    }

    private void awaitState(UUID id, String state) {
        await().atMost(Duration.ofSeconds(30)).until(
                () -> state.equals(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, id)));
    }
}
