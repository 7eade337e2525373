package dev.ingestor.processing;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import dev.ingestor.validation.DeliveryAdvice;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Item-level idempotency on (supplier, source_id, source_version). Which record wins:
 * <ul>
 * <li>new item: ACCEPTED;</li>
 * <li>versioned record over a versioned item: a higher version is UPDATED, the same or a lower one a REPLAY;</li>
 * <li>unversioned record: the content decides (changed UPDATED, unchanged REPLAY), and the item keeps the highest
 *     version it has seen, so a late lower version is still a REPLAY after an unversioned change;</li>
 * <li>versioned record over an item that never had a version: the content decides, and a change records the
 *     version, from which on versions decide.</li>
 * </ul>
 * A REPLAY changes nothing and writes no event. Each effect adds one to the item's revision and writes its outbox
 * event in the same statement, so effects and events commit together or not at all. The event id is a fresh
 * random UUID per effect, stored with the event: a resend of the event carries the same id, and a later effect
 * of the same item never gets an earlier one's id, even when it brings back earlier content. The event's
 * {@code source_version} is the item's (the highest seen), its {@code revision} orders the item's events.
 */
@Component
public class ItemStore {

    /** Effects and events of one batch in one round trip; a REPLAY matches no row and writes nothing. */
    private static final String APPLY = """
            WITH input AS (
              SELECT * FROM unnest(?::text[], ?::bigint[], ?::text[], ?::text[])
                AS t(source_id, source_version, record_hash, record)
            ), upserted AS (
              INSERT INTO item AS i (supplier, source_id, source_version, record_hash, record, job_id)
              SELECT ?, source_id, source_version, record_hash, record::jsonb, ? FROM input
              ON CONFLICT (supplier, source_id) DO UPDATE
                SET source_version = coalesce(EXCLUDED.source_version, i.source_version),
                    record_hash = EXCLUDED.record_hash, record = EXCLUDED.record, job_id = EXCLUDED.job_id,
                    revision = i.revision + 1, updated_at = now()
                WHERE CASE WHEN EXCLUDED.source_version IS NOT NULL AND i.source_version IS NOT NULL
                           THEN EXCLUDED.source_version > i.source_version
                           ELSE EXCLUDED.record_hash <> i.record_hash END
              RETURNING i.supplier, i.source_id, i.source_version, i.revision, i.record, (i.xmax = 0) AS inserted
            ), events AS (
              SELECT u.*, gen_random_uuid() AS event_id FROM upserted u
            ), written AS (
              INSERT INTO outbox (event_id, topic, event_key, payload)
              SELECT event_id, ?, supplier || ':' || source_id,
                     jsonb_build_object('event_id', event_id, 'job_id', ?::text, 'supplier', supplier,
                                        'source_id', source_id, 'source_version', source_version,
                                        'revision', revision,
                                        'outcome', CASE WHEN inserted THEN 'ACCEPTED' ELSE 'UPDATED' END,
                                        'record', record)::text
              FROM events
              RETURNING 1
            )
            SELECT source_id, inserted FROM upserted
            """;

    private final JdbcTemplate jdbc;

    public ItemStore(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Applies a batch whose source ids are distinct. The result names the items written (ACCEPTED or UPDATED);
     * every other item of the batch was a REPLAY.
     */
    public AppliedBatch apply(String supplier, UUID jobId, String topic, List<DeliveryAdvice> batch) {
        if (batch.isEmpty()) {
            return AppliedBatch.empty();
        }
        int n = batch.size();
        String[] ids = new String[n];
        Long[] versions = new Long[n];
        String[] hashes = new String[n];
        String[] records = new String[n];
        for (int i = 0; i < n; i++) {
            DeliveryAdvice advice = batch.get(i);
            String json = advice.canonicalJson();
            ids[i] = advice.sourceId();
            versions[i] = advice.sourceVersion();
            hashes[i] = DeliveryAdvice.hash(json);
            records[i] = json;
        }
        return jdbc.execute((Connection c) -> {
            try (PreparedStatement ps = c.prepareStatement(APPLY)) {
                Array a1 = c.createArrayOf("text", ids);
                Array a2 = c.createArrayOf("bigint", versions);
                Array a3 = c.createArrayOf("text", hashes);
                Array a4 = c.createArrayOf("text", records);
                ps.setArray(1, a1);
                ps.setArray(2, a2);
                ps.setArray(3, a3);
                ps.setArray(4, a4);
                ps.setString(5, supplier);
                ps.setObject(6, jobId);
                ps.setString(7, topic);
                ps.setString(8, jobId.toString());
                Map<String, RecordOutcome> written = new HashMap<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        written.put(rs.getString(1), rs.getBoolean(2) ? RecordOutcome.ACCEPTED : RecordOutcome.UPDATED);
                    }
                }
                return new AppliedBatch(Set.copyOf(Arrays.asList(ids)), written);
            }
        });
    }
}
