package dev.ingestor.processing;

import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import java.util.function.Supplier;

import dev.ingestor.config.KafkaSettings;
import dev.ingestor.job.ImportJob;
import dev.ingestor.job.RecordCounts;
import dev.ingestor.logging.SafeText;
import dev.ingestor.validation.DeliveryAdviceValidator;
import dev.ingestor.validation.QuarantineWriter;
import dev.ingestor.validation.RawRecord;
import dev.ingestor.validation.RecordReader;
import dev.ingestor.validation.Validated;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The one apply loop: validates records in order and applies the valid ones to their items ({@link ItemStore},
 * which writes each effect's event too), batch by batch. The processing stage applies a job's records with it,
 * each batch committed with the job's checkpoint ({@link #applyJob}); an item batch applied while its caller
 * waits ({@link #applyBatch}) and the files of a group of small files together ({@link #applyGroup}, for
 * {@link SmallFileGroup}) go through it in the caller's one transaction. All apply the same records the same way, so
 * all give the same outcomes and the same events.
 *
 * <p>One statement may touch an item once: a record whose item is already in the batch starts the next batch, so a
 * second sighting of an item in the same records is judged against the first one's effect. The files of a group
 * share statements on that rule: their records in the files' order, as one file after the other.
 */
@Component
public class ItemApplier {

    /**
     * How one batch becomes durable: runs {@code apply} (the batch's effects and events) and commits them with the
     * checkpoint moved from {@code from}, the records done before this batch, to {@code position}, the records done
     * once it is, and answers what {@code apply} did. {@code last} marks the run's final commit, after which no
     * record is left.
     */
    @FunctionalInterface
    public interface BatchCommit {
        AppliedBatch commit(Supplier<AppliedBatch> apply, long from, long position, boolean last);
    }

    /**
     * One record and what became of it: its item and version when it is valid, the source id it named (at most 128
     * characters of it) and the reason when it was quarantined.
     */
    public record AppliedRecord(String sourceId, Long sourceVersion, String reason, RecordOutcome outcome) {
    }

    /**
     * What a run did: the position reached, its counts, and (for an item batch only; a job's file may hold
     * millions) every record with its outcome, in order.
     */
    public record Applied(long position, RecordCounts counts, List<AppliedRecord> records) {
    }

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.processing");

    private final ItemStore items;
    private final QuarantineWriter quarantine;
    private final String topic;

    public ItemApplier(ItemStore items, QuarantineWriter quarantine, KafkaSettings kafka) {
        this.items = items;
        this.quarantine = quarantine;
        this.topic = kafka.getItemsTopic();
    }

    /**
     * Applies a job's records after {@code checkpoint}, the records committed before (read from the database by
     * the caller, never taken from the job as it was claimed: a retry must not apply an earlier attempt's batches
     * again), {@code batchSize} valid records at most per batch, each batch made durable by {@code commit} with
     * the records done; the last commit (possibly of no record) carries the position of the last record.
     * Quarantine is not written here: the validation stage kept the invalid records already, and its verdict
     * stands for every record ({@code quarantined} answers it by record number): a record it quarantined is passed
     * over whatever it reads like now, and one it took that is invalid now throws {@link VerdictsDisagreeException}
     * before its batch commits, so that no record is passed over unseen.
     */
    public Applied applyJob(ImportJob job, long checkpoint, Iterator<RawRecord> records, int batchSize,
            LongPredicate quarantined, BatchCommit commit) {
        Run run = new Run(batchSize, commit, false, false, checkpoint);
        run.retriesLostDeadlocks = true;
        run.file(job.supplier(), job.id(), job.receivedAt(), job.rerun());
        long skip = checkpoint;
        while (records.hasNext()) {
            RawRecord record = records.next();
            if (skip > 0) {
                skip--;
                run.skip(); // committed by an earlier run of this job
            } else if (quarantined.test(record.index())) {
                run.quarantinedBefore(); // validation's verdict
            } else {
                run.addTaken(record);
            }
        }
        return run.finish();
    }

    /**
     * Applies the records of an item batch in the caller's transaction, as one batch (split only where an item comes
     * again), each record checked once. Once the counts are known, {@code recordJob} records the job the effects
     * belong to, and the invalid records are quarantined under it. {@code records} opens the batch's records; they
     * are read twice, first for their items alone: a batch's parsed records are never held all at once, only their
     * text waiting for the statement ({@link ItemStore.Entry}) and what the answer says of each.
     */
    public Applied applyBatch(String supplier, UUID jobId, Supplier<RecordReader> records,
            Consumer<RecordCounts> recordJob) {
        Set<String> sourceIds = new HashSet<>();
        boolean repeats = false;
        try (RecordReader first = records.get()) {
            while (first.hasNext()) {
                String id = DeliveryAdviceValidator.sourceIdOf(first.next());
                repeats |= id != null && !sourceIds.add(id);
            }
        }
        if (repeats) {
            // an item named twice splits the records into several statements: its items are locked first, in the
            // one order (ItemStore), as a single statement would lock them
            items.lockInOrder(Map.of(supplier, sourceIds));
        }
        Run run = new Run(Integer.MAX_VALUE, (apply, from, position, last) -> apply.get(), true, true, 0);
        run.file(supplier, jobId, null, false);
        try (RecordReader again = records.get()) {
            again.forEachRemaining(run::add);
        }
        Applied applied = run.finish();
        recordJob.accept(applied.counts());
        quarantine.insert(run.quarantined);
        return applied;
    }

    /**
     * A small file of a group: its supplier, its job, when the job was received, whether it is a re-run, and its
     * records.
     */
    public record GroupFile(String supplier, UUID jobId, Instant receivedAt, boolean rerun, List<RawRecord> records) {
    }

    /**
     * Applies the files of a group of small files in the caller's transaction, file after file, each record checked
     * once, and quarantines their invalid records; answers each file's counts, in the files' order. The files' valid
     * records share statements of at most {@code batchSize} records: a few records of a file cost less than a
     * statement of their own. The caller has locked the group's items that exist ({@link ItemStore#lockInOrder}):
     * a group's records may take several statements.
     */
    public List<RecordCounts> applyGroup(List<GroupFile> files, int batchSize) {
        if (files.isEmpty()) {
            return List.of();
        }
        Run run = new Run(batchSize, (apply, from, position, last) -> apply.get(), false, true, 0);
        List<Tally> tallies = new ArrayList<>();
        for (GroupFile file : files) {
            tallies.add(run.file(file.supplier(), file.jobId(), file.receivedAt(), file.rerun()));
            file.records().forEach(run::add);
        }
        run.finish();
        quarantine.insert(run.quarantined);
        return tallies.stream().map(Tally::counts).toList();
    }

    /** What became of one file's records. */
    private static final class Tally {

        private final String supplier;
        private final UUID jobId;
        private final Instant receivedAt;
        private final boolean rerun;
        private long total;
        private long accepted;
        private long updated;
        private long replayed;

        Tally(String supplier, UUID jobId, Instant receivedAt, boolean rerun) {
            this.supplier = supplier;
            this.jobId = jobId;
            this.receivedAt = receivedAt;
            this.rerun = rerun;
        }

        void count(RecordOutcome outcome) {
            switch (outcome) {
                case ACCEPTED -> accepted++;
                case REPLAY -> replayed++;
                // a tombstone's effect is counted as an update (AppliedBatch#updated)
                default -> updated++;
            }
        }

        RecordCounts counts() {
            return new RecordCounts(total, accepted, updated, replayed, total - accepted - updated - replayed);
        }
    }

    /** One pass over records, of one file or of a group's files: the batch being filled and what was done so far. */
    private final class Run {

        private final int batchSize;
        private final BatchCommit commit;
        private final boolean keep;
        private final boolean quarantines;
        private final List<ItemStore.Entry> batch = new ArrayList<>();
        /** Per record of the batch: the file it came from, and its slot among the kept records (-1: not kept). */
        private final List<Tally> batchFiles = new ArrayList<>();
        private final List<Integer> batchSlots = new ArrayList<>();
        private final Set<ItemKey> batchItems = new HashSet<>();
        /** What the answer says of each record ({@code keep}), its outcome set once its batch is applied. */
        private final List<AppliedRecord> kept = new ArrayList<>();
        private final List<Object[]> quarantined = new ArrayList<>();
        private Tally file;
        private long position;
        /** The records done as last committed: where the next batch's checkpoint moves from. */
        private long committed;
        /**
         * Whether a batch whose transaction PostgreSQL ended to break a deadlock is committed again at once: only where
         * each commit is a transaction of its own (a job's batches), not in a caller's transaction, which is over.
         */
        private boolean retriesLostDeadlocks;

        /**
         * {@code keep}: every record is kept with its outcome; {@code quarantines}: the invalid records' rows are
         * gathered for the caller to quarantine (a job's records were quarantined by its validation already).
         */
        Run(int batchSize, BatchCommit commit, boolean keep, boolean quarantines, long committed) {
            this.committed = committed;
            this.batchSize = Math.max(1, batchSize);
            this.commit = commit;
            this.keep = keep;
            this.quarantines = quarantines;
        }

        /**
         * The records added from now on are {@code jobId}'s, of {@code supplier}, received at {@code receivedAt} (null:
         * now), {@code rerun}: a re-run's.
         */
        Tally file(String supplier, UUID jobId, Instant receivedAt, boolean rerun) {
            file = new Tally(supplier, jobId, receivedAt, rerun);
            return file;
        }

        void add(RawRecord raw) {
            add(DeliveryAdviceValidator.validate(raw));
        }

        private void add(Validated record) {
            position++;
            file.total++;
            int slot = -1;
            if (keep) {
                slot = kept.size();
                kept.add(record.isValid()
                        ? new AppliedRecord(record.advice().sourceId(), record.advice().sourceVersion(), null, null)
                        : new AppliedRecord(SafeText.of(record.raw().fields().get("source_id"), 128), null,
                                record.reason(), RecordOutcome.QUARANTINED));
            }
            if (!record.isValid()) {
                if (quarantines) {
                    quarantined.add(QuarantineWriter.row(file.jobId, record));
                }
                return;
            }
            ItemStore.Entry entry = ItemStore.Entry.of(file.supplier, file.jobId, file.receivedAt, record.advice(),
                    record.raw().index(), file.rerun);
            if (!batchItems.add(entry.item())) {
                flush(position - 1, false);
                batchItems.add(entry.item());
            }
            batch.add(entry);
            batchFiles.add(file);
            batchSlots.add(slot);
            if (batch.size() >= batchSize) {
                flush(position, false);
            }
        }

        void skip() {
            position++;
        }

        /** A record validation quarantined: counted, and not applied whatever it reads like now. */
        void quarantinedBefore() {
            position++;
            file.total++;
        }

        /** {@link #add}, for a record validation took: invalid now, it throws {@link VerdictsDisagreeException}. */
        void addTaken(RawRecord raw) {
            Validated record = DeliveryAdviceValidator.validate(raw);
            if (!record.isValid()) {
                throw new VerdictsDisagreeException(file.jobId, raw.line(), record.reason());
            }
            add(record);
        }

        /** Applies what is left; the counts are the last file's (a group's caller keeps each file's own tally). */
        Applied finish() {
            flush(position, true);
            return new Applied(position, file.counts(), List.copyOf(kept));
        }

        /** Applies and commits the batch with {@code done} records done ({@code last}: all), and empties it. */
        private void flush(long done, boolean last) {
            AppliedBatch applied = commitOnce(done, last);
            committed = done;
            for (int k = 0; k < batch.size(); k++) {
                RecordOutcome outcome = applied.outcomeOf(batch.get(k).item());
                batchFiles.get(k).count(outcome);
                if (keep) {
                    AppliedRecord record = kept.get(batchSlots.get(k));
                    kept.set(batchSlots.get(k),
                            new AppliedRecord(record.sourceId(), record.sourceVersion(), record.reason(), outcome));
                }
            }
            batch.clear();
            batchFiles.clear();
            batchSlots.clear();
            batchItems.clear();
        }

        /**
         * Commits the batch. A job's batch writes its items in one statement, in the one order, but a transaction of
         * several statements (a group of small files) writes an item it creates after it locked the existing ones: a
         * batch that created that item first and then waits for one the group locked deadlocks with it, and
         * PostgreSQL ends one of them. The batch's transaction was rolled back whole, so it is committed again at once
         * (the group, if it was the one ended, is done again one file at a time): by then the other transaction holds
         * what it needs, and the batch waits for it instead.
         */
        private AppliedBatch commitOnce(long done, boolean last) {
            for (int attempt = 1;; attempt++) {
                try {
                    return commit.commit(() -> items.apply(topic, batch), committed, done, last);
                } catch (RuntimeException e) {
                    if (!retriesLostDeadlocks || attempt >= DEADLOCK_ATTEMPTS || !lostADeadlock(e)) {
                        throw e;
                    }
                    LOG.warn("job={} records {}-{}: the batch's transaction was ended to break a deadlock; committed"
                            + " again (attempt {} of {})", file.jobId, committed + 1, done, attempt + 1,
                            DEADLOCK_ATTEMPTS);
                }
            }
        }
    }

    /** How often a job's batch is committed when PostgreSQL ends it to break a deadlock, the first time included. */
    static final int DEADLOCK_ATTEMPTS = 3;

    /** Whether {@code failure} is PostgreSQL's ending of this transaction to break a deadlock (SQLState 40P01). */
    static boolean lostADeadlock(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && "40P01".equals(sql.getSQLState())) {
                return true;
            }
        }
        return false;
    }
}
