package dev.ingestor.operations;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;

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
 * {@code ingestor.retention.batch-size} at a time, each batch going on from where the one before ended: the current
 * versions among the old ones, which stay, are passed once per run, not once per batch.
 */
@Component("itemHistoryRetention")
class ItemHistoryRetention {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.housekeeping");

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
            SELECT (SELECT count(*) FROM batch) AS read, (SELECT count(*) FROM gone) AS deleted,
                   last.recorded_at, last.supplier, last.source_id, last.revision
            FROM (SELECT * FROM batch ORDER BY recorded_at DESC, supplier DESC, source_id DESC, revision DESC
                  LIMIT 1) last""";

    private final JdbcTemplate jdbc;
    private final RetentionSettings retention;

    ItemHistoryRetention(JdbcTemplate jdbc, RetentionSettings retention) {
        this.jdbc = jdbc;
        this.retention = retention;
    }

    /** Deletes the expired versions that are not their item's current one; returns how many went. */
    public long retain() {
        long seconds = retention.getItemVersions().toSeconds();
        if (seconds <= 0) {
            return 0;
        }
        int batch = Math.max(1, retention.getBatchSize());
        Timestamp cutoff = Timestamp.from(Instant.now().minusSeconds(seconds));
        Timestamp from = Timestamp.from(Instant.EPOCH);
        Object[] after = {from, "", "", -1L};
        long deleted = 0;
        int statements = 0;
        while (true) {
            statements++;
            List<Map<String, Object>> rows = jdbc.queryForList(BATCH, cutoff, after[0], after[0], after[1], after[2],
                    after[3], batch);
            if (rows.isEmpty()) {
                break;
            }
            Map<String, Object> last = rows.get(0);
            deleted += ((Number) last.get("deleted")).longValue();
            if (((Number) last.get("read")).longValue() < batch) {
                break;
            }
            after = new Object[] {last.get("recorded_at"), last.get("supplier"), last.get("source_id"),
                    last.get("revision")};
        }
        if (deleted > 0) {
            LOG.info("retention deleted item-versions={} (recorded before {}; current versions kept) in {} statements",
                    deleted, cutoff.toInstant(), statements);
        }
        return deleted;
    }
}
