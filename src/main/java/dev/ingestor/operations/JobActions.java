package dev.ingestor.operations;

import java.util.Optional;
import java.util.UUID;

import dev.ingestor.job.DeadLetterStore;
import dev.ingestor.job.JobLifecycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What an operator can do to jobs, all in PostgreSQL and all idempotent in effect: a job sent round again
 * meets item-level idempotency, so items already applied come back REPLAY and no event is written twice.
 * Only a job at rest (finished) is touched; one a worker holds is left alone. Every action is logged with who.
 * The jobs' state changes, with the guards that say which job may be sent round, are {@link JobLifecycle}'s.
 */
@Component
class JobActions {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.admin");

    private final DeadLetterStore deadLetters;
    private final JobLifecycle lifecycle;
    private final TransactionTemplate transactions;

    public JobActions(DeadLetterStore deadLetters, JobLifecycle lifecycle,
            PlatformTransactionManager transactionManager) {
        this.deadLetters = deadLetters;
        this.lifecycle = lifecycle;
        this.transactions = new TransactionTemplate(transactionManager);
    }

    /** Back to RECEIVED: validation reads the file again, then processing applies it (replays stay replays). */
    public boolean revalidate(UUID jobId, String who) {
        boolean done = lifecycle.revalidate(jobId);
        LOG.info("admin action=revalidate job={} by={} result={}", jobId, who,
                done ? "queued" : "refused (not at rest, or unknown)");
        return done;
    }

    /** Back to PROCESSING from the first record: the quarantine stays as validation left it. */
    public boolean reprocess(UUID jobId, String who) {
        boolean done = lifecycle.reprocess(jobId);
        LOG.info("admin action=reprocess job={} by={} result={}", jobId, who,
                done ? "queued" : "refused (not finished, never validated, or unknown)");
        return done;
    }

    /**
     * Sends a dead letter's job back to the stage that failed: processing resumes from its checkpoint,
     * validation starts again. The dead letter is kept, marked replayed.
     */
    public boolean replayDeadLetter(long deadLetterId, String who) {
        boolean done = Boolean.TRUE.equals(transactions.execute(status -> Optional.of(deadLetterId)
                .filter(lifecycle::lockJobOfDeadLetter)
                .flatMap(deadLetters::lockWaiting)
                .filter(letter -> lifecycle.resumeAfterDeadLetter(letter.jobId(), letter.stage()))
                .map(letter -> {
                    deadLetters.markReplayed(letter.id(), who);
                    return true;
                }).orElse(false)));
        LOG.info("admin action=replay-dead-letter dead-letter={} by={} result={}", deadLetterId, who,
                done ? "queued" : "refused (already replayed, unknown, or its job is not FAILED)");
        return done;
    }

    /** Every FAILED job of a supplier, each back to the stage that failed. */
    public int retryFailed(String supplier, String who) {
        Integer count = transactions.execute(status -> {
            int n = 0;
            for (JobLifecycle.FailedJob job : lifecycle.lockFailed(supplier)) {
                UUID jobId = job.jobId();
                if (lifecycle.resumeAfterDeadLetter(jobId, job.stage())) {
                    deadLetters.markReplayedOfJob(jobId, who);
                    n++;
                }
            }
            return n;
        });
        LOG.info("admin action=retry-failed supplier={} by={} jobs={}", supplier, who, count);
        return count == null ? 0 : count;
    }
}
