package dev.ingestor.processing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import dev.ingestor.outbox.OutboxWriter;
import dev.ingestor.validation.DeliveryAdvice;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Item-level idempotency on (supplier, source_id, source_version). Which record wins:
 * <ul>
 * <li>new item: ACCEPTED;</li>
 * <li>versioned record over a versioned item: a higher version is UPDATED, the same or a lower one a REPLAY;</li>
 * <li>unversioned record: the content decides (changed UPDATED, unchanged REPLAY), and the item keeps the highest
 *     version it has seen, so a late lower version is still a REPLAY after an unversioned change;</li>
 * <li>versioned record over an item that never had a version: the content decides, and a change records the
 *     version, from which on versions decide.</li>
 * <li>a tombstone (a record marked deleted) is a record like the others under these rules; its effect retires
 *     the item (INACTIVE, outcome DELETED), a tombstone for an unknown item records it INACTIVE, and a later
 *     record with an effect makes it ACTIVE again (UPDATED).</li>
 * </ul>
 * A job an operator sent round again (a re-run: {@code ImportJob.rerun}) meets these rules too, and two more where the
 * content decides (either side without a version), so that it repeats nothing and undoes nothing: its record makes no
 * effect on an item whose content its own job wrote with that record or a later one ({@code item.record_no}), nor on
 * an item whose content a job received after its own wrote ({@code item.job_received_at}, judged in the statement's
 * {@code ON CONFLICT} under the item's lock, so a write that committed while the statement ran is seen too). A re-run's
 * records go in statements of their own ({@link #APPLY_RERUN}).
 * Every effect is kept in the item's history too ({@code item_version}, by the same statement).
 * A REPLAY changes nothing and writes no event. Each effect adds one to the item's revision and writes its outbox
 * event in the same transaction ({@link OutboxWriter}, which gives the event its id), so effects and events
 * commit together or not at all. The event's {@code source_version} is the item's (the highest seen), its
 * {@code revision} orders the item's events.
 * <p>
 * Item rows are locked in one order, by supplier, then source id (byte order): the apply statement writes its items
 * in that order whatever the order of the records (its events keep their order), and a transaction that may apply
 * several statements (a group of small files, whose records fill statements of at most the batch size and split
 * where an item comes again) first locks every item it will touch that exists, in that order ({@link #lockInOrder}).
 * Jobs that carry the same items in other orders (full snapshots resent) then wait for each other instead of
 * deadlocking. An item that does not exist yet cannot be locked before it is written, so two transactions of
 * several statements that create the same new items in other orders can still deadlock; PostgreSQL ends one, and its
 * group is done again one file at a time. So can a job's batch that creates an item a group writes later, while it
 * waits for an item the group locked: the one ended is the group (done again one file at a time) or the batch
 * (committed again at once, {@code ItemApplier}). Locking the batch's existing items before its statement would not
 * help: an item created between two batches' locks would then be locked out of order by one of them.
 */
@Component
public class ItemStore {

    /**
     * The effects of one batch, their history rows and their events, in one statement, answering with the
     * outcome of each effect; a REPLAY matches no row and answers nothing. Each record comes with its supplier, the
     * job it belongs to and the id its event gets if it has an effect, so one statement serves the records of
     * several small files of a group (a statement costs more than the few records of such a file). The events are
     * written by the statement itself (the outbox's part is {@link OutboxWriter#insertEvents}), in the records'
     * order: their payloads never travel to this JVM and back. The record is the canonical JSON text made by
     * {@link DeliveryAdvice#canonicalJson} and is stored, kept in the history and put in the payload as that text;
     * the payload's other values are escaped by {@code to_json}. No record is parsed by the database (as jsonb it
     * would be parsed twice and printed back for its event: about a quarter of the statement's time).
     */
    private static String apply(boolean rerun) {
        return """
                WITH input AS (
                  SELECT * FROM unnest(?::text[], ?::uuid[], ?::text[], ?::bigint[], ?::text[], ?::text[], ?::uuid[],
                      ?::boolean[], ?::bigint[], ?::timestamptz[]) WITH ORDINALITY
                    AS t(supplier, job_id, source_id, source_version, record_hash, record, event_id, deleted, record_no,
                         job_received_at, n)
                ), applicable AS (
                  SELECT * FROM input t%s
                ), upserted AS (
                  INSERT INTO item AS i (supplier, source_id, source_version, record_hash, record, job_id, record_no,
                      job_received_at, state)
                  SELECT supplier, source_id, source_version, record_hash, record, job_id, record_no,
                         coalesce(job_received_at, now()), CASE WHEN deleted THEN 'INACTIVE' ELSE 'ACTIVE' END
                  FROM applicable
                  ORDER BY supplier COLLATE "C", source_id COLLATE "C"
                  ON CONFLICT (supplier, source_id) DO UPDATE
                    SET source_version = coalesce(EXCLUDED.source_version, i.source_version),
                        record_hash = EXCLUDED.record_hash, record = EXCLUDED.record, job_id = EXCLUDED.job_id,
                        record_no = EXCLUDED.record_no, job_received_at = EXCLUDED.job_received_at,
                        state = EXCLUDED.state, revision = i.revision + 1, updated_at = now()
                    WHERE CASE WHEN EXCLUDED.source_version IS NOT NULL AND i.source_version IS NOT NULL
                               THEN EXCLUDED.source_version > i.source_version
                               ELSE EXCLUDED.record_hash <> i.record_hash%s
                          END
                  RETURNING i.supplier, i.source_id, i.source_version, i.revision, i.record, i.state, i.job_id,
                            CASE WHEN i.state = 'INACTIVE' THEN 'DELETED' WHEN i.xmax = 0 THEN 'ACCEPTED'
                                 ELSE 'UPDATED' END AS outcome
                ), history AS (
                  INSERT INTO item_version (supplier, source_id, revision, source_version, outcome, state, record,
                      job_id, event_id)
                  SELECT u.supplier, u.source_id, u.revision, u.source_version, u.outcome, u.state, u.record, u.job_id,
                      t.event_id
                  FROM upserted u JOIN input t ON t.supplier = u.supplier AND t.source_id = u.source_id
                ), events AS (
                  %s
                )
                SELECT u.supplier, u.source_id, u.outcome FROM upserted u
                """
                .formatted(rerun ? NOT_WRITTEN_BY_ITSELF : "", rerun ? LATER_WRITER_STANDS : "", EVENTS);
    }

    /** The events of the statement's effects, in the records' order ({@link OutboxWriter#insertEvents}). */
    private static final String EVENTS = OutboxWriter.insertEvents("""
            SELECT t.event_id, ?::text AS topic, u.supplier || ':' || u.source_id AS event_key,
                   '{"event_id":"' || t.event_id || '","job_id":' || to_json(u.job_id::text)::text
                     || ',"supplier":' || to_json(u.supplier)::text || ',"source_id":' || to_json(u.source_id)::text
                     || ',"source_version":' || coalesce(u.source_version::text,
                         'null') || ',"revision":' || u.revision
                     || ',"outcome":"' || u.outcome || '","record":' || u.record || '}' AS payload,
                   t.n
            FROM upserted u JOIN input t ON t.supplier = u.supplier AND t.source_id = u.source_id""");

    /**
     * A re-run's record where the content decides: none that its own job wrote already, with that record or a later
     * one (a file may name an item twice). Read on the statement's snapshot: only this job's worker writes its records.
     */
    private static final String NOT_WRITTEN_BY_ITSELF = """

            WHERE NOT EXISTS (
              SELECT 1 FROM item i
              WHERE i.supplier = t.supplier AND i.source_id = t.source_id
                AND (i.source_version IS NULL OR t.source_version IS NULL)
                AND i.job_id = t.job_id AND (i.record_no IS NULL OR i.record_no >= t.record_no))""";

    /**
     * A re-run's record where the content decides: no effect on an item whose content a job received after its own
     * wrote (known on the item since V27; before, by that job's row while it is kept). Judged in the ON CONFLICT, under
     * the item's lock, so a job that wrote the item while the re-run's statement ran is seen too.
     */
    private static final String LATER_WRITER_STANDS = """

            AND CASE WHEN i.job_received_at IS NOT NULL
                     THEN i.job_received_at <= EXCLUDED.job_received_at
                     ELSE NOT EXISTS (SELECT 1 FROM import_job w WHERE w.id = i.job_id
                                        AND w.received_at > EXCLUDED.job_received_at) END""";

    /** The statement of a first run's records. */
    private static final String APPLY = apply(false);
    /** The statement of a re-run's records ({@code ImportJob.rerun}): a job's records are all one or the other. */
    private static final String APPLY_RERUN = apply(true);

    /**
     * A record to apply: its supplier, the job it came in and when that was received (null: now, for a batch whose
     * job is written in the same transaction), its item and version, whether it is a tombstone, the
     * record as its canonical JSON text ({@link DeliveryAdvice#canonicalJson}), its number in the job's file (from 1),
     * and whether the job is a re-run ({@code ImportJob.rerun}). The text, not the parsed record, waits for the
     * statement: a batch holds its records' bytes, not a map per record of every field.
     */
    public record Entry(String supplier, UUID jobId, Instant jobReceivedAt, String sourceId, Long sourceVersion,
            boolean deleted, String record, long recordNo, boolean rerun) {

        public static Entry of(String supplier, UUID jobId, Instant jobReceivedAt, DeliveryAdvice advice,
                long recordNo, boolean rerun) {
            return new Entry(supplier, jobId, jobReceivedAt, advice.sourceId(), advice.sourceVersion(),
                    advice.deleted(), advice.canonicalJson(), recordNo, rerun);
        }

        ItemKey item() {
            return new ItemKey(supplier, sourceId);
        }
    }

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final OutboxWriter outbox;

    public ItemStore(JdbcTemplate jdbc, PlatformTransactionManager transactionManager, OutboxWriter outbox) {
        this.jdbc = jdbc;
        this.transactions = new TransactionTemplate(transactionManager);
        this.outbox = outbox;
    }

    /**
     * Applies a batch whose items are distinct. The result names the items written (ACCEPTED, UPDATED or DELETED);
     * every other item of the batch was a REPLAY. One statement, the effects with their events, in the caller's
     * transaction, or in one of its own when the caller has none: never an effect without its event.
     */
    public AppliedBatch apply(String topic, List<Entry> batch) {
        if (batch.isEmpty()) {
            return AppliedBatch.empty();
        }
        return transactions.execute(status -> applyNow(topic, batch));
    }

    /** {@link #apply(String, List)} of one job's first run, its records numbered from 1 in the order given. */
    public AppliedBatch apply(String supplier, UUID jobId, String topic, List<DeliveryAdvice> batch) {
        List<Entry> entries = new ArrayList<>(batch.size());
        for (DeliveryAdvice advice : batch) {
            entries.add(Entry.of(supplier, jobId, null, advice, entries.size() + 1, false));
        }
        return apply(topic, entries);
    }

    /**
     * Locks, in the caller's transaction and in the one order of {@link ItemStore} (supplier, then source id), the
     * existing items among {@code sourceIds} (source ids by supplier): for a transaction that applies several
     * statements, whose later statements would otherwise lock items after the first one's, out of that order.
     */
    public void lockInOrder(Map<String, ? extends Collection<String>> sourceIds) {
        List<String> suppliers = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        sourceIds.forEach((supplier, its) -> its.forEach(id -> {
            suppliers.add(supplier);
            ids.add(id);
        }));
        if (ids.isEmpty()) {
            return;
        }
        jdbc.query("SELECT 1 FROM item i JOIN unnest(?::text[], ?::text[]) AS k(supplier, source_id)"
                + " ON i.supplier = k.supplier AND i.source_id = k.source_id"
                + " ORDER BY i.supplier COLLATE \"C\", i.source_id COLLATE \"C\" FOR UPDATE OF i",
                ps -> {
                    ps.setArray(1, ps.getConnection().createArrayOf("text", suppliers.toArray()));
                    ps.setArray(2, ps.getConnection().createArrayOf("text", ids.toArray()));
                }, rs -> {});
    }

    private AppliedBatch applyNow(String topic, List<Entry> batch) {
        int n = batch.size();
        String[] suppliers = new String[n];
        UUID[] jobIds = new UUID[n];
        String[] ids = new String[n];
        Long[] versions = new Long[n];
        String[] hashes = new String[n];
        String[] records = new String[n];
        Boolean[] deleted = new Boolean[n];
        Long[] recordNos = new Long[n];
        // as ISO instants: pgjdbc writes a Timestamp of an array as the JVM's local time, without its offset
        String[] received = new String[n];
        Set<ItemKey> sent = new HashSet<>();
        for (int i = 0; i < n; i++) {
            Entry entry = batch.get(i);
            String json = entry.record();
            suppliers[i] = entry.supplier();
            jobIds[i] = entry.jobId();
            ids[i] = entry.sourceId();
            versions[i] = entry.sourceVersion();
            hashes[i] = DeliveryAdvice.hash(json);
            records[i] = json;
            deleted[i] = entry.deleted();
            recordNos[i] = entry.recordNo();
            received[i] = entry.jobReceivedAt() == null ? null : entry.jobReceivedAt().toString();
            sent.add(entry.item());
        }
        boolean rerun = batch.get(0).rerun();
        if (batch.stream().anyMatch(entry -> entry.rerun() != rerun)) {
            throw new IllegalArgumentException("a statement's records are a re-run's or a first run's, not both");
        }
        UUID[] eventIds = OutboxWriter.newEventIds(n);
        Map<ItemKey, RecordOutcome> written = new HashMap<>();
        jdbc.execute((Connection c) -> {
            try (PreparedStatement ps = c.prepareStatement(rerun ? APPLY_RERUN : APPLY)) {
                ps.setArray(1, c.createArrayOf("text", suppliers));
                ps.setArray(2, c.createArrayOf("uuid", jobIds));
                ps.setArray(3, c.createArrayOf("text", ids));
                ps.setArray(4, c.createArrayOf("bigint", versions));
                ps.setArray(5, c.createArrayOf("text", hashes));
                ps.setArray(6, c.createArrayOf("text", records));
                ps.setArray(7, c.createArrayOf("uuid", eventIds));
                ps.setArray(8, c.createArrayOf("boolean", deleted));
                ps.setArray(9, c.createArrayOf("bigint", recordNos));
                ps.setArray(10, c.createArrayOf("timestamptz", received));
                ps.setString(11, topic);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        written.put(new ItemKey(rs.getString(1), rs.getString(2)),
                                RecordOutcome.valueOf(rs.getString(3)));
                    }
                }
                return null;
            }
        });
        if (!written.isEmpty()) {
            outbox.written(topic);
        }
        return new AppliedBatch(sent, written);
    }
}
