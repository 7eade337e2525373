package dev.ingestor.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Suppliers that resend full snapshots: several files over the same items, each in its own order, processed at
 * the same time by the stage's workers, while a transient failure (a serialization failure raised by PostgreSQL
 * itself) strikes each job once after its first batch committed. Every (item, file) effect happens exactly once,
 * each item ends as the file applied to it last left it, each job counts each record once, and no two jobs
 * deadlock over their items.
 */
// slow tier: many overlapping batches, and the deadlock statistics waited for
@SlowTest
class OverlappingSnapshotsTest extends IngestorTestSupport {

    private static final int FILES = 8;
    private static final int ITEMS = 3000;
    /** ingestor.pipeline.batch-size's default: three batches per file. */
    private static final int BATCH = 1000;

    @AfterEach
    void removeTheInjectedFailure() {
        jdbc.execute("DROP TRIGGER IF EXISTS fail_once_after_first_batch ON import_job");
        jdbc.execute("DROP FUNCTION IF EXISTS fail_once_after_first_batch()");
        for (int file = 1; file <= FILES; file++) {
            jdbc.execute("DROP SEQUENCE IF EXISTS " + failureSequence(file));
        }
    }

    @Test
    void overlappingSnapshotsAreEachAppliedOnceWithoutDeadlocksWhenABatchFailsAfterAnotherCommitted() {
        // the job's second checkpoint fails once per file: batch 1 is committed, batch 2 rolls back, and the stage's
        // redelivery runs the job again. A sequence counts the failures, as it is not rolled back with them
        for (int file = 1; file <= FILES; file++) {
            jdbc.execute("CREATE SEQUENCE " + failureSequence(file));
        }
        jdbc.execute("""
                CREATE FUNCTION fail_once_after_first_batch() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                  IF OLD.records_done = %d AND NEW.records_done = %d AND NEW.file_name LIKE 'snapshot-%%.csv'
                     AND nextval('snapshot_failure_' || substring(NEW.file_name FROM 'snapshot-(\\d+)\\.csv')) = 1 THEN
                    RAISE EXCEPTION 'injected: could not serialize access after the first batch of %%', NEW.file_name
                      USING ERRCODE = '40001';
                  END IF;
                  RETURN NEW;
                END $$""".formatted(BATCH, 2 * BATCH));
        jdbc.execute("CREATE TRIGGER fail_once_after_first_batch BEFORE UPDATE ON import_job"
                + " FOR EACH ROW EXECUTE FUNCTION fail_once_after_first_batch()");
        long deadlocksBefore = deadlocksSoFar();

        // every file a new content for every item, each file in its own order; unversioned, so content decides
        Random random = new Random(24);
        List<String> ids = new ArrayList<>();
        for (int i = 1; i <= ITEMS; i++) {
            ids.add(String.format("SNAP-%04d", i));
        }
        Map<UUID, Integer> fileOfJob = new HashMap<>();
        List<String> contents = new ArrayList<>();
        for (int file = 1; file <= FILES; file++) {
            Collections.shuffle(ids, random);
            StringBuilder csv = new StringBuilder("source_id,source_version,sku,quantity,delivery_date\n");
            for (String id : ids) {
                csv.append(id).append(",,SKU-").append(id).append(',').append(file).append(",2026-12-01\n");
            }
            contents.add(csv.toString());
        }
        for (int file = 1; file <= FILES; file++) {
            fileOfJob.put(intake("ACME", "snapshot-" + file + ".csv", contents.get(file - 1)), file);
        }

        await().atMost(Duration.ofSeconds(180)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM import_job WHERE state NOT IN ('RECEIVED', 'VALIDATING', 'PROCESSING')",
                Long.class) == FILES);

        // the failure struck every job once, after its first batch had committed
        for (int file = 1; file <= FILES; file++) {
            assertThat(jdbc.queryForObject("SELECT last_value FROM " + failureSequence(file), Long.class))
                    .as("the injected failure of snapshot-%d struck", file).isGreaterThanOrEqualTo(1);
        }
        // each job counts each of its records once: every one an effect, none a replay
        for (Map<String, Object> job : jdbc.queryForList(
                "SELECT id, file_name, state, total, records_done, accepted, updated, replayed, quarantined FROM import_job")) {
            assertThat(job).as(job.toString()).containsEntry("state", "COMPLETED").containsEntry("total", (long) ITEMS)
                    .containsEntry("records_done", (long) ITEMS).containsEntry("replayed", 0L)
                    .containsEntry("quarantined", 0L);
            assertThat((Long) job.get("accepted") + (Long) job.get("updated")).as(job.toString()).isEqualTo(ITEMS);
        }
        // every (item, file) effect exactly once, with one event each
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item_version WHERE supplier = 'ACME'", Long.class))
                .isEqualTo((long) FILES * ITEMS);
        assertThat(jdbc.queryForList("SELECT source_id || ' ' || job_id FROM item_version WHERE supplier = 'ACME'"
                + " GROUP BY source_id, job_id HAVING count(*) > 1", String.class)).as("an effect applied twice")
                .isEmpty();
        assertThat(jdbc.queryForObject("SELECT count(DISTINCT event_id) FROM outbox_all WHERE topic = 'ingestor.items'",
                Long.class)).isEqualTo((long) FILES * ITEMS);
        // each item is what the file applied to it last made it: its last effect's job and record
        assertThat(jdbc.queryForList("""
                SELECT i.source_id FROM item i
                JOIN LATERAL (SELECT v.job_id, v.record, v.revision FROM item_version v
                              WHERE v.supplier = i.supplier AND v.source_id = i.source_id
                              ORDER BY v.revision DESC LIMIT 1) last ON true
                WHERE i.supplier = 'ACME' AND (i.job_id <> last.job_id OR i.record <> last.record
                                               OR i.revision <> last.revision OR i.revision <> ?)""",
                String.class, FILES)).as("items not as their last effect left them").isEmpty();
        for (Map<String, Object> item : jdbc.queryForList(
                "SELECT job_id, record::jsonb->>'quantity' AS quantity FROM item WHERE supplier = 'ACME' LIMIT 50")) {
            assertThat(item.get("quantity")).isEqualTo(String.valueOf(fileOfJob.get((UUID) item.get("job_id"))));
        }
        assertThat(deadlocksSoFar() - deadlocksBefore).as("deadlocks between the jobs").isZero();
    }

    private static String failureSequence(int file) {
        return "snapshot_failure_" + file;
    }
}
