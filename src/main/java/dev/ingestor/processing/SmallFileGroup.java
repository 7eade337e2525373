package dev.ingestor.processing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.ingestor.job.ImportJob;
import dev.ingestor.job.JobClaims;
import dev.ingestor.job.JobLifecycle;
import dev.ingestor.job.JobState;
import dev.ingestor.job.LeaseLostException;
import dev.ingestor.job.PipelineSettings;
import dev.ingestor.job.RecordCounts;
import dev.ingestor.logging.SafeText;
import dev.ingestor.metrics.IngestorMetrics;
import dev.ingestor.validation.DeliveryAdviceValidator;
import dev.ingestor.validation.JobRecords;
import dev.ingestor.validation.RawRecord;
import dev.ingestor.validation.RecordReader;
import org.apache.camel.Body;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Validates and processes a group of small files in one transaction: what a validation worker claimed at once
 * ({@link JobClaims#claimJobsForValidation}). Most pushes and drops are a file of a few records, and for such a file
 * a claim, two commits, three Camel exchanges and the statements that move the job cost more than its records do;
 * a group shares them, and its files' records share apply statements. Each file keeps its own quarantine, its own
 * item effects and events (in the order the files came: a later file's record is judged against an earlier one's
 * effect exactly as one file after the other would be), and its own counts and end state.
 * <p>
 * Any file that is not plainly fine goes the one-file way, with the stage's own error handling, redelivery and
 * dead letters: one that cannot be read, has no records or more than {@code ingestor.pipeline.batch-size}, resumes
 * from a checkpoint, or is a re-run (an operator sent it round again). If the group's transaction fails (a database
 * error, a lost lease, a record the database refuses), nothing of it is committed and every file of the group is done
 * again one at a time, so a poison file still fails alone and the others complete.
 */
@Component
public class SmallFileGroup {

    private static final Logger VALIDATION = LoggerFactory.getLogger("dev.ingestor.validation");
    private static final Logger PROCESSING = LoggerFactory.getLogger("dev.ingestor.processing");

    /** A file of the group, read whole. */
    private record Read(ImportJob job, List<RawRecord> records) {
    }

    private final JobRecords jobRecords;
    private final ItemApplier applier;
    private final ItemStore items;
    private final JobLifecycle lifecycle;
    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final IngestorMetrics metrics;
    private final int batchSize;

    public SmallFileGroup(JobRecords jobRecords, ItemApplier applier, ItemStore items, JobLifecycle lifecycle,
            JdbcTemplate jdbc, PlatformTransactionManager transactionManager,
            IngestorMetrics metrics, PipelineSettings pipeline) {
        this.jobRecords = jobRecords;
        this.applier = applier;
        this.items = items;
        this.lifecycle = lifecycle;
        this.jdbc = jdbc;
        this.transactions = new TransactionTemplate(transactionManager);
        this.metrics = metrics;
        this.batchSize = Math.max(1, pipeline.getBatchSize());
    }

    /**
     * Completes what it can of {@code jobs} as one group and answers the jobs left for the one-file way (still
     * held by this instance, in validation), in the order given. A single job is always left.
     */
    public List<ImportJob> run(@Body List<ImportJob> jobs, Exchange exchange) {
        if (jobs.size() < 2) {
            return jobs;
        }
        exchange.setProperty(JobClaims.GROUPED, Boolean.TRUE);
        List<UUID> done = new ArrayList<>();
        try {
            completeTogether(jobs, done);
        } catch (RuntimeException | LinkageError | AssertionError | StackOverflowError e) {
            // never thrown to the route: the jobs it did not complete would wait held for their lease to lapse.
            // Only a failing JVM (out of memory) goes past, and the group's leases then lapse as after a crash
            PROCESSING.warn(
                    "group of {} small files stopped ({}: {}); what it did not complete is validated and processed"
                            + " alone",
                    jobs.size(), e.getClass().getSimpleName(), SafeText.of(e.getMessage(), 300));
        }
        return jobs.stream().filter(job -> !done.contains(job.id())).toList();
    }

    /** Completes what it can of {@code jobs} as one group, adding each job completed to {@code done}. */
    private void completeTogether(List<ImportJob> jobs, List<UUID> done) {
        long start = System.nanoTime();
        List<Read> group = new ArrayList<>();
        for (ImportJob job : jobs) {
            Read read = read(job);
            if (read != null) {
                group.add(read);
            }
        }
        if (group.size() < 2) {
            return;
        }
        List<JobLifecycle.GroupResult> results;
        try {
            results = transactions.execute(status -> apply(group));
        } catch (RuntimeException | LinkageError | AssertionError | StackOverflowError e) {
            metrics.group("alone", group.size());
            PROCESSING.warn("group of {} small files not completed ({}: {}); each is validated and processed alone",
                    group.size(), e.getClass().getSimpleName(), SafeText.of(e.getMessage(), 300));
            return;
        }
        group.forEach(read -> done.add(read.job().id()));
        metrics.group("completed", group.size());
        long share = (System.nanoTime() - start) / group.size();
        for (int i = 0; i < group.size(); i++) {
            ImportJob job = group.get(i).job();
            JobLifecycle.GroupResult result = results.get(i);
            metrics.stage("validation", job.supplier()).record(share / 2, TimeUnit.NANOSECONDS);
            metrics.stage("processing", job.supplier()).record(share - share / 2, TimeUnit.NANOSECONDS);
            metrics.records(job.supplier(), result.accepted(), result.updated(), result.replayed(),
                    result.quarantined());
            VALIDATION.info("validated supplier={} job={} key={} records={} quarantined={} processing=at once group={}",
                    job.supplier(), job.id(), job.key(), result.total(), result.quarantined(), group.size());
            PROCESSING.info("processed supplier={} job={} key={} state={} records={} reads=1 group={}", job.supplier(),
                    job.id(), job.key(), result.end(), result.total(), group.size());
        }
    }

    /** The file read whole; null when it goes the one-file way. */
    private Read read(ImportJob job) {
        // a re-run's records are judged by their own rules (ItemStore), in statements of their own
        if (job.recordsDone() != 0 || job.rerun()) {
            return null;
        }
        List<RawRecord> records = new ArrayList<>();
        try (RecordReader reader = jobRecords.open(job)) {
            while (reader.hasNext()) {
                if (records.size() == batchSize) {
                    return null;
                }
                records.add(reader.next());
            }
        } catch (Exception e) {
            // unreadable, or a failure reading it: the one-file way meets it with the stage's own handling
            return null;
        }
        return records.isEmpty() ? null : new Read(job, records);
    }

    /** The group's quarantine, effects, events and end states, in the caller's transaction. */
    private List<JobLifecycle.GroupResult> apply(List<Read> group) {
        UUID[] ids = group.stream().map(read -> read.job().id()).toArray(UUID[]::new);
        // a re-run (an earlier group or attempt that failed) starts from a clean slate, as validation does
        jdbc.update("DELETE FROM job_record WHERE job_id = ANY (?)",
                ps -> ps.setArray(1, ps.getConnection().createArrayOf("uuid", ids)));
        // the group's records may take several statements (at most batch-size records each, and an item that comes
        // again starts the next), each locking its items after the previous one's: the items that exist are locked
        // first, all in the one order, so that a group never deadlocks with another job over the same items
        Map<String, Set<String>> sourceIds = new TreeMap<>();
        for (Read read : group) {
            Set<String> supplierIds = sourceIds.computeIfAbsent(read.job().supplier(), supplier -> new TreeSet<>());
            for (RawRecord record : read.records()) {
                String id = DeliveryAdviceValidator.sourceIdOf(record);
                if (id != null) {
                    supplierIds.add(id);
                }
            }
        }
        items.lockInOrder(sourceIds);
        // the files one after the other, each record checked once: the valid ones applied (the files sharing
        // statements), the others quarantined (the job rows exist already, so there is nothing to record first)
        List<RecordCounts> counts = applier.applyGroup(group.stream()
                .map(read -> new ItemApplier.GroupFile(read.job().supplier(), read.job().id(), read.job().receivedAt(),
                        read.job().rerun(),
                        read.records()))
                .toList(), batchSize);
        List<JobLifecycle.GroupResult> results = new ArrayList<>();
        for (int i = 0; i < group.size(); i++) {
            RecordCounts c = counts.get(i);
            results.add(new JobLifecycle.GroupResult(group.get(i).job().id(),
                    c.quarantined() > 0 ? JobState.COMPLETED_WITH_ERRORS : JobState.COMPLETED, c.total(),
                    c.quarantined(), c.accepted(), c.updated(), c.replayed()));
        }
        List<UUID> completed = lifecycle.completedGroup(group.get(0).job().lease(), results);
        if (completed.size() != group.size()) {
            // a job of the group was taken over meanwhile: nothing of the group stands
            throw new LeaseLostException(
                    java.util.Arrays.stream(ids).filter(id -> !completed.contains(id)).findFirst().orElse(ids[0]));
        }
        return results;
    }
}
