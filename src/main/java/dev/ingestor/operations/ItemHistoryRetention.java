package dev.ingestor.operations;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.ingestor.config.RetentionSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Retention of the items' history (item_version), run by routes/housekeeping.camel.yaml after the rest of
 * retention: versions recorded longer ago than {@code ingestor.retention.item-versions} go, an item's current version
 * (its item row's revision) never does.
 *
 * <p>The old versions are read in the order of item_version_recorded (recorded_at, then the key), a batch of
 * {@code ingestor.retention.batch-size} at a time, each batch going on from where the one before ended. An item not
 * changed for longer than the retention keeps its current version for ever, and with the years most old versions are
 * such: so only an instance's first run reads every old version. Each later run reads what can have become
 * deletable since the run before: the versions that crossed the cutoff since ({@link #BATCH} from the last cutoff),
 * and the items that got a new version since ({@link #SUPERSEDED}, from the last run's start less
 * {@link #LATE_COMMITS}, for the effects of transactions that began before it and committed after it). A run's cost
 * then follows the items' changes, not the years of history kept.
 */
@Component("itemHistoryRetention")
class ItemHistoryRetention {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.housekeeping");

    /** What a batch answers: the versions it read, those it deleted, and the key the next batch goes on from. */
    private static final String ANSWER = """
            SELECT (SELECT count(*) FROM batch) AS read, (SELECT count(*) FROM gone) AS deleted,
                   last.recorded_at, last.supplier, last.source_id, last.revision
            FROM (SELECT * FROM batch ORDER BY recorded_at DESC, supplier DESC, source_id DESC, revision DESC
                  LIMIT 1) last""";

    /** A batch of old versions: the non-current ones deleted, and the key the next batch goes on from. */
    static final String BATCH = """
            WITH batch AS (
              SELECT supplier, source_id, revision, recorded_at FROM item_version
              WHERE recorded_at < ? AND recorded_at >= ?
                AND (recorded_at, supplier, source_id, revision) > (?, ?, ?, ?)
              ORDER BY recorded_at, supplier, source_id, revision
              LIMIT ?),
            gone AS (
              DELETE FROM item_version v USING batch b, item i
              WHERE v.supplier = b.supplier AND v.source_id = b.source_id AND v.revision = b.revision
                AND i.supplier = b.supplier AND i.source_id = b.source_id AND b.revision < i.revision
              RETURNING 1)
            """ + ANSWER;

    /**
     * A batch of the versions recorded since a time, read as {@link #BATCH} reads: for each, its item's versions older
     * than the cutoff and not current are deleted (the version read has superseded them, or a later one has).
     */
    static final String SUPERSEDED = """
            WITH batch AS (
              SELECT supplier, source_id, revision, recorded_at FROM item_version
              WHERE recorded_at >= ? AND recorded_at < ? AND (recorded_at, supplier, source_id, revision) > (?, ?, ?, ?)
              ORDER BY recorded_at, supplier, source_id, revision
              LIMIT ?),
            gone AS (
              DELETE FROM item_version v USING (SELECT DISTINCT supplier, source_id FROM batch WHERE revision > 1) b,
                  item i
              WHERE v.supplier = b.supplier AND v.source_id = b.source_id AND v.recorded_at < ?
                AND i.supplier = b.supplier AND i.source_id = b.source_id AND v.revision < i.revision
              RETURNING 1)
            """ + ANSWER;

    /** How long before a run's start a transaction may have begun that committed an effect after it. */
    static final Duration LATE_COMMITS = Duration.ofHours(1);

    private final JdbcTemplate jdbc;
    private final RetentionSettings retention;
    /** The last run's cutoff and start (the database's clock); null before this instance's first run. */
    private Timestamp lastCutoff;
    private Timestamp lastStart;

    ItemHistoryRetention(JdbcTemplate jdbc, RetentionSettings retention) {
        this.jdbc = jdbc;
        this.retention = retention;
    }

    /** What a run did: the versions it deleted, those it read, and its statements. */
    record Report(long deleted, long read, int statements) {
    }

    /** Deletes the expired versions that are not their item's current one; returns how many went. */
    public long retain() {
        return run().deleted();
    }

    /** The next run reads every old version again, as an instance's first run does. */
    synchronized void startOver() {
        lastCutoff = null;
        lastStart = null;
    }

    synchronized Report run() {
        long seconds = retention.getItemVersions().toSeconds();
        if (seconds <= 0) {
            return new Report(0, 0, 0);
        }
        int batch = Math.max(1, retention.getBatchSize());
        Map<String, Object> clock = jdbc.queryForMap(
                "SELECT now() AS start, now() - make_interval(secs => ?) AS cutoff",
                (double) seconds);
        Timestamp start = (Timestamp) clock.get("start");
        Timestamp cutoff = (Timestamp) clock.get("cutoff");
        long[] done = new long[3];
        Function<Object[], List<Map<String, Object>>> old = after -> jdbc.queryForList(BATCH, cutoff, after[0],
                after[0], after[1], after[2], after[3], batch);
        if (lastCutoff == null) {
            pass(batch, done, Timestamp.from(Instant.EPOCH), old);
        } else {
            pass(batch, done, lastCutoff, old);
            // up to this run's start, not on after it: versions written meanwhile are the next run's
            pass(batch, done, Timestamp.from(lastStart.toInstant().minus(LATE_COMMITS)), after -> jdbc.queryForList(
                    SUPERSEDED, after[0], start, after[0], after[1], after[2], after[3], batch, cutoff));
        }
        lastCutoff = cutoff;
        lastStart = start;
        if (done[0] > 0) {
            LOG.info("retention deleted item-versions={} (recorded before {}; current versions kept), read {} in {}"
                    + " statements", done[0], cutoff.toInstant(), done[1], done[2]);
        }
        return new Report(done[0], done[1], (int) done[2]);
    }

    /**
     * Runs batch after batch ({@code next}: {@link #BATCH} or {@link #SUPERSEDED} from the key it is given) over the
     * versions recorded from {@code from}, adding what it deleted, read and ran to {@code done}.
     */
    private static void pass(int batch, long[] done, Timestamp from,
            Function<Object[], List<Map<String, Object>>> next) {
        Object[] after = {from, "", "", -1L};
        while (true) {
            done[2]++;
            List<Map<String, Object>> rows = next.apply(after);
            if (rows.isEmpty()) {
                return;
            }
            Map<String, Object> last = rows.get(0);
            done[0] += ((Number) last.get("deleted")).longValue();
            long read = ((Number) last.get("read")).longValue();
            done[1] += read;
            if (read < batch) {
                return;
            }
            after = new Object[] {last.get("recorded_at"), last.get("supplier"), last.get("source_id"),
                    last.get("revision")};
        }
    }
}
