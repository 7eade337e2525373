package dev.ingestor.operations;

import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;

import dev.ingestor.job.DeadLetterStore;
import dev.ingestor.job.JobLifecycle;
import dev.ingestor.job.JobState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What an operator can do to jobs, all in PostgreSQL and all idempotent in effect: a job sent round again
 * meets item-level idempotency and the re-run rules ({@code ItemStore}), so items already applied come back REPLAY
 * and no event is written twice. Only a job at rest (finished) is touched; one a worker holds is left alone. A job
 * sent round again has its waiting dead letters marked replayed in the same transaction, so none of them can send it
 * round once more later. Every action is logged with who.
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

    /** What became of a dead letter's replay. */
    enum Replay {
        /** Its job is sent back to the stage that failed. */
        QUEUED,
        /** An event Kafka refused for good: the letter is marked seen, nothing is sent round (its effect stands). */
        ACKNOWLEDGED,
        /** Unknown, replayed already, or its job is not FAILED. */
        REFUSED
    }

    /**
     * Back to RECEIVED: validation reads the file again, then processing applies it (replays stay replays). Only while
     * the job is in {@code expected}, when that is named: the state the operator saw.
     */
    public boolean revalidate(UUID jobId, JobState expected, String who) {
        boolean done = sentRound(jobId, who, () -> lifecycle.revalidate(jobId, expected));
        LOG.info("admin action=revalidate job={} by={} result={}", jobId, who,
                done ? "queued" : "refused (not at rest, not " + expected + " as expected, or unknown)");
        return done;
    }

    /**
     * Back to PROCESSING from the first record: the quarantine stays as validation left it. Only while the job is in
     * {@code expected}, when that is named.
     */
    public boolean reprocess(UUID jobId, JobState expected, String who) {
        boolean done = sentRound(jobId, who, () -> lifecycle.reprocess(jobId, expected));
        LOG.info("admin action=reprocess job={} by={} result={}", jobId, who,
                done
                        ? "queued"
                        : "refused (not finished, never validated, not " + expected + " as expected, or unknown)");
        return done;
    }

    /**
     * Sends a dead letter's job back to the stage that failed, which its letters say
     * ({@link DeadLetterStore#failedStage}; not this letter's, which may be an older one): processing resumes from
     * its checkpoint, validation starts again. The job's waiting letters are kept, marked replayed. The letter of an
     * event Kafka refused for good is only acknowledged: its job's effects stand, and sending the job round would not
     * send the event.
     */
    public Replay replayDeadLetter(long deadLetterId, String who) {
        Replay replay = transactions.execute(status -> {
            if (deadLetters.acknowledgeRefusedEvent(deadLetterId, who)) {
                return Replay.ACKNOWLEDGED;
            }
            return Optional.of(deadLetterId)
                    .filter(lifecycle::lockJobOfDeadLetter)
                    .flatMap(deadLetters::lockWaiting)
                    .filter(letter -> lifecycle.resumeAfterDeadLetter(letter.jobId(),
                            deadLetters.failedStage(letter.jobId())))
                    .map(letter -> {
                        deadLetters.markReplayedOfJob(letter.jobId(), who);
                        return Replay.QUEUED;
                    }).orElse(Replay.REFUSED);
        });
        LOG.info("admin action=replay-dead-letter dead-letter={} by={} result={}", deadLetterId, who,
                switch (replay) {
                    case QUEUED -> "queued";
                    case ACKNOWLEDGED -> "acknowledged (an event Kafka refused; its effect stands)";
                    default -> "refused (already replayed, unknown, or its job is not FAILED)";
                });
        return replay;
    }

    /**
     * Every waiting letter of an event of {@code jobId} that Kafka refused for good, marked seen: as many replays of
     * them, one at a time, would do. Nothing is sent round. Returns how many.
     */
    public int acknowledgeRefusedEvents(UUID jobId, String who) {
        int acknowledged = deadLetters.acknowledgeRefusedEventsOfJob(jobId, who);
        LOG.info("admin action=acknowledge-refused-events job={} by={} acknowledged={}", jobId, who, acknowledged);
        return acknowledged;
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

    /** {@code send} sends the job round; if it did, the job's waiting letters are marked replayed with it. */
    private boolean sentRound(UUID jobId, String who, BooleanSupplier send) {
        return Boolean.TRUE.equals(transactions.execute(status -> {
            if (!send.getAsBoolean()) {
                return false;
            }
            deadLetters.markReplayedOfJob(jobId, who);
            return true;
        }));
    }
}
