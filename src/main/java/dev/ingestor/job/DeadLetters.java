package dev.ingestor.job;

import java.util.UUID;

import dev.ingestor.metrics.IngestorMetrics;
import dev.ingestor.outbox.DeadLetterWriter;
import dev.ingestor.outbox.FailedJobError;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The dead-letter channel's end: a failure that outlasted the redelivery policy is recorded (job, stage,
 * exception, message, attempts, time), the job is marked FAILED with an error naming the stage, the dead letter
 * and the message ({@link FailedJobError}), and an event for
 * {@code ingestor.dead-letters} goes into the outbox ({@link DeadLetterWriter}), all in one transaction.
 */
@Component
public class DeadLetters {

    public static final String STAGE = "IngestorStage";
    /** The stages whose failed jobs end here, as their dead letters and ingestor_dead_letters_total name them. */
    public static final String VALIDATION = "validation";
    public static final String PROCESSING = "processing";
    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.deadletter");

    private final JobLifecycle lifecycle;
    private final DeadLetterWriter writer;
    private final TransactionTemplate transactions;
    private final IngestorMetrics metrics;

    public DeadLetters(JobLifecycle lifecycle, DeadLetterWriter writer,
            PlatformTransactionManager transactionManager, IngestorMetrics metrics) {
        this.metrics = metrics;
        // from 0, so that the dead-letter alert sees the first one after a start (IngestorMetrics#intakeFromZero)
        metrics.deadLettersFromZero(VALIDATION);
        metrics.deadLettersFromZero(PROCESSING);
        this.lifecycle = lifecycle;
        this.writer = writer;
        this.transactions = new TransactionTemplate(transactionManager);
    }

    public void record(Exchange exchange) {
        ImportJob job = exchange.getMessage().getBody(ImportJob.class);
        Throwable cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        while (cause instanceof org.apache.camel.CamelExecutionException && cause.getCause() != null) {
            cause = cause.getCause(); // Camel's wrapper says nothing; what it wraps does
        }
        String stage = exchange.getProperty(STAGE, "unknown", String.class);
        int attempts = Math.max(1, Attempts.of(exchange));
        String exceptionType = cause == null ? "unknown" : cause.getClass().getName();
        String message = cause == null ? "no exception recorded" : String.valueOf(cause.getMessage());
        Throwable logged = cause;
        UUID jobId = job == null ? null : job.id();
        DeadLetterWriter.Failure failure = new DeadLetterWriter.Failure(jobId, job == null ? null : job.supplier(),
                job == null ? null : job.key().toString(), stage, exceptionType, message, attempts);
        boolean recorded = Boolean.TRUE.equals(transactions.execute(status -> {
            // the letter first: the job's error names it
            long letter = writer.write(failure, true);
            if (jobId != null && !lifecycle.failed(jobId, job.lease(), FailedJobError.of(stage, letter, message))) {
                status.setRollbackOnly(); // another worker owns the job now; its outcome is its own
                return false;
            }
            return true;
        }));
        if (recorded) {
            metrics.deadLetter(stage);
            LOG.error("dead letter supplier={} job={} key={} stage={} attempts={} exception={} message=\"{}\"",
                    job == null ? null : job.supplier(), jobId, job == null ? null : job.key(), stage, attempts,
                    exceptionType, message, logged);
        }
    }
}
