package dev.ingestor.processing;

import java.util.Iterator;
import java.util.function.Supplier;

import dev.ingestor.job.Attempts;
import dev.ingestor.job.ImportJob;
import dev.ingestor.job.JobClaims;
import dev.ingestor.job.JobState;
import dev.ingestor.job.LeaseLostException;
import dev.ingestor.job.PipelineSettings;
import dev.ingestor.metrics.IngestorMetrics;
import dev.ingestor.validation.JobRecords;
import dev.ingestor.validation.RawRecord;
import dev.ingestor.validation.ReadRecords;
import dev.ingestor.validation.RecordReader;
import dev.ingestor.validation.UnreadableFileException;
import io.micrometer.core.instrument.Timer;
import org.apache.camel.Body;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The processing stage: applies the valid records of a validated job in batches ({@link ItemApplier}). Each
 * batch commits its item effects, their outbox events and the job's checkpoint (records done, counts) in one
 * transaction, guarded by the lease, so a worker that dies mid-job leaves a consistent checkpoint and whoever
 * takes the job over resumes after it: no effect and no event twice. A retry of the stage (a deadlock, a database
 * that went away) is a run like any other: it reads the checkpoint again under the lease and resumes after it, and
 * a batch commits only while the checkpoint still stands where the batch began, so no range of records is applied
 * or counted twice.
 */
@Component
class JobProcessing {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.processing");

    private final JobRecords jobRecords;
    private final ItemApplier applier;
    private final JobClaims claims;
    private final TransactionTemplate transactions;
    private final PipelineSettings pipeline;
    private final IngestorMetrics metrics;
    private final JdbcTemplate jdbc;

    public JobProcessing(JobRecords jobRecords, ItemApplier applier, JobClaims claims,
            PlatformTransactionManager transactionManager, PipelineSettings pipeline,
            IngestorMetrics metrics, JdbcTemplate jdbc) {
        this.jdbc = jdbc;
        this.metrics = metrics;
        this.jobRecords = jobRecords;
        this.applier = applier;
        this.claims = claims;
        this.transactions = new TransactionTemplate(transactionManager);
        this.pipeline = pipeline;
    }

    public void process(@Body ImportJob job, Exchange exchange) throws Exception {
        Attempts.count(exchange);
        Timer.Sample timing = Timer.start();
        // validation set the quarantine count before this job could be claimed for processing
        JobState end = job.counts().quarantined() > 0 ? JobState.COMPLETED_WITH_ERRORS : JobState.COMPLETED;
        ItemApplier.Applied applied;
        // what is committed decides where this run starts, not the job as claimed: this may be a retry
        long checkpoint = claims.resumePoint(job);
        // a small file comes with the records its validation read, by the same worker: not read again
        RecordReader handedOn = ReadRecords.of(exchange);
        Runnable keepLease = claims.leaseKeeper(job);
        try (RecordReader records = handedOn != null ? handedOn : jobRecords.open(job)) {
            // records are read between the batches' transactions, where the lease may be renewed
            Iterator<RawRecord> keepingTheLease = new Iterator<>() {
                @Override
                public boolean hasNext() {
                    return records.hasNext();
                }

                @Override
                public RawRecord next() {
                    RawRecord record = records.next();
                    keepLease.run();
                    return record;
                }
            };
            applied = applier.applyJob(job, checkpoint, keepingTheLease, pipeline.getBatchSize(),
                    // validation's verdict on each record stands; without a quarantine there is nothing to look up
                    job.counts().quarantined() == 0 ? recordNo -> false : new QuarantinedByValidation(jdbc, job.id()),
                    (apply, from, position, last) -> commit(job, apply, from, position, last ? end : null));
        } catch (UnreadableFileException e) {
            // validation read it: not a rejection now, after effects may have been applied
            throw new UnreadableSinceValidationException(job.id(), e);
        }
        long position = applied.position();
        timing.stop(metrics.stage("processing", job.supplier()));
        // reads=1: the records validation read were handed on; reads=2: the file was read again
        LOG.info("processed supplier={} job={} key={} state={} records={} reads={}", job.supplier(), job.id(),
                job.key(), end,
                position, handedOn != null ? 1 : 2);
    }

    /**
     * Effects, events and the checkpoint moved from {@code from} to {@code position} in one transaction; with the
     * last batch ({@code end} not null) the job comes to rest in {@code end} by the same statement as its checkpoint.
     */
    private AppliedBatch commit(ImportJob job, Supplier<AppliedBatch> apply, long from, long position, JobState end) {
        AppliedBatch applied = transactions.execute(status -> {
            AppliedBatch result = apply.get();
            // a lost lease or a moved checkpoint throws here and rolls the batch back: the run that holds the job
            // applies it itself
            if (end == null) {
                claims.checkpoint(job, from, position, result.accepted(), result.updated(), result.replayed());
            } else if (!claims.completed(job, end, from, position, result.accepted(), result.updated(),
                    result.replayed())) {
                throw new LeaseLostException(job.id());
            }
            return result;
        });
        metrics.records(job.supplier(), applied.accepted(), applied.updated(), applied.replayed(), 0);
        return applied;
    }
}
