package dev.ingestor.validation;

import java.util.ArrayList;
import java.util.List;

import dev.ingestor.job.Attempts;
import dev.ingestor.job.ImportJob;
import dev.ingestor.job.JobClaims;
import dev.ingestor.job.JobLifecycle;
import dev.ingestor.job.JobState;
import dev.ingestor.job.LeaseLostException;
import dev.ingestor.job.PipelineSettings;
import dev.ingestor.metrics.IngestorMetrics;
import io.micrometer.core.instrument.Timer;
import org.apache.camel.Body;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The validation stage: reads the stored file once, checks every record and quarantines the bad ones with
 * their reasons. A file that cannot be read as a whole is rejected before any effect happens.
 * <p>
 * A file of at most {@code ingestor.pipeline.one-pass-max-size} and {@code ingestor.pipeline.batch-size} records is
 * handed on to processing by the same worker, still held, with the records read ({@link ReadRecords}): most pushes
 * and drops are small, and for them a second claim and a second read of the file would be most of what the
 * pipeline costs. The size bound keeps what a worker holds small whatever a record's size. A larger file waits for a
 * processing worker, which reads it again batch by batch.
 */
@Component
class JobValidation {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.validation");
    private static final int INSERT_BATCH = 1000;
    private final QuarantineWriter quarantine;
    private final IngestorMetrics metrics;

    private final JobRecords jobRecords;
    private final JobClaims claims;
    private final JobLifecycle lifecycle;
    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final int handOnAtMost;
    private final long handOnMaxBytes;

    public JobValidation(JobRecords jobRecords, JobClaims claims, JobLifecycle lifecycle, JdbcTemplate jdbc,
            QuarantineWriter quarantine, IngestorMetrics metrics, PipelineSettings pipeline,
            PlatformTransactionManager transactionManager) {
        this.transactions = new TransactionTemplate(transactionManager);
        this.handOnAtMost = Math.max(1, pipeline.getBatchSize());
        this.handOnMaxBytes = pipeline.getOnePassMaxSize().toBytes();
        this.metrics = metrics;
        this.quarantine = quarantine;
        this.jobRecords = jobRecords;
        this.claims = claims;
        this.lifecycle = lifecycle;
        this.jdbc = jdbc;
    }

    /**
     * Validates {@code job}; answers the job as it is now: waiting for processing, or (a small file) held for
     * processing by this worker with its records on the exchange.
     */
    public ImportJob validate(@Body ImportJob job, Exchange exchange) throws Exception {
        try {
            return validateRecords(job, exchange);
        } catch (UnreadableFileException e) {
            if (job.rerun() && lifecycle.appliedBefore(job.id())) {
                // an earlier run may have applied its records: REJECTED would say it has no effect. The dead letter's
                // FAILED keeps what this run quarantined, which REJECTED clears: cleared here, while still held
                quarantine.clearWhileHeld(job.id(), job.lease());
                throw new UnreadableOnRerunException(job.id(), e);
            }
            throw e;
        }
    }

    private ImportJob validateRecords(ImportJob job, Exchange exchange) throws Exception {
        Attempts.count(exchange);
        // before the clean slate: a redelivery must not clear what this worker no longer holds, nor what its own
        // earlier attempt committed as validated and then lost the answer of
        JobState held = lifecycle.heldBy(job.id(), job.lease()).orElseThrow(() -> new LeaseLostException(job.id()));
        if (held == JobState.PROCESSING) {
            if (lifecycle.validatedEarlier(job.id(), job.lease())) {
                LOG.info("job={} was validated by this worker's earlier attempt, whose answer was lost; handed on to"
                        + " processing", job.id());
            }
            return job;
        }
        Timer.Sample timing = Timer.start();
        // a re-run (redelivery, takeover, re-validation) starts from a clean slate, while this worker still holds the
        // job: it may have been paused since the look above for longer than its lease
        if (!quarantine.clearWhileHeld(job.id(), job.lease())) {
            throw new LeaseLostException(job.id());
        }
        long total = 0;
        long quarantined = 0;
        List<Object[]> pending = new ArrayList<>();
        // the records read, while they fit in one processing batch and the file is small; null once they do not
        List<RawRecord> read = job.size() <= handOnMaxBytes ? new ArrayList<>() : null;
        Runnable keepLease = claims.leaseKeeper(job);
        try (RecordReader records = jobRecords.open(job)) {
            while (records.hasNext()) {
                RawRecord raw = records.next();
                keepLease.run();
                if (read != null && read.size() == handOnAtMost) {
                    read = null; // more than one batch: processing reads the file itself
                }
                if (read != null) {
                    read.add(raw);
                }
                Validated record = DeliveryAdviceValidator.validate(raw);
                total++;
                if (!record.isValid()) {
                    quarantined++;
                    pending.add(row(job, record));
                    if (pending.size() >= INSERT_BATCH) {
                        insert(job, pending);
                        claims.requireLease(job);
                    }
                }
            }
        }
        insert(job, pending);
        if (total == 0) {
            throw UnreadableFileException.noRecords();
        }
        ImportJob next;
        if (read != null) {
            next = lifecycle.validatedAndHeld(job.id(), job.lease(), total, quarantined)
                    .orElseThrow(() -> new LeaseLostException(job.id()));
            ReadRecords.handOn(exchange, read);
        } else if (lifecycle.validated(job.id(), job.lease(), total, quarantined)) {
            next = job;
        } else {
            throw new LeaseLostException(job.id());
        }
        timing.stop(metrics.stage("validation", job.supplier()));
        metrics.records(job.supplier(), 0, 0, 0, quarantined);
        LOG.info("validated supplier={} job={} key={} records={} quarantined={}{}", job.supplier(), job.id(), job.key(),
                total, quarantined, read != null ? " processing=at once" : "");
        return next;
    }

    /** The route's answer to an {@link UnreadableFileException}: a final error, no retry. */
    public void reject(@Body ImportJob job, @ExchangeProperty(Exchange.EXCEPTION_CAUGHT) Exception cause) {
        // one transaction: a REJECTED job never keeps the rows of the run that found it unreadable, and a job this
        // worker no longer holds keeps its quarantine
        if (Boolean.TRUE.equals(transactions.execute(status -> {
            if (!lifecycle.rejected(job.id(), job.lease(), cause.getMessage())) {
                return false;
            }
            quarantine.clear(job.id());
            return true;
        }))) {
            LOG.warn("rejected supplier={} job={} key={} reason=\"{}\"", job.supplier(), job.id(), job.key(),
                    cause.getMessage());
        }
    }

    /** The quarantined rows so far, written only while this worker holds the job; else it lets go. */
    private void insert(ImportJob job, List<Object[]> rows) {
        if (!rows.isEmpty() && !quarantine.insertWhileHeld(rows, job.id(), job.lease())) {
            throw new LeaseLostException(job.id());
        }
    }

    private static Object[] row(ImportJob job, Validated record) {
        return QuarantineWriter.row(job.id(), record);
    }
}
