package dev.ingestor.job;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import dev.ingestor.config.InstanceId;
import dev.ingestor.failure.TransientFailures;
import dev.ingestor.metrics.IngestorMetrics;
import dev.ingestor.outbox.DeadLetterWriter;
import dev.ingestor.outbox.FailedJobError;
import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Which worker owns which job. A stage claims the oldest waiting job with {@code FOR UPDATE SKIP LOCKED}, so
 * workers in any number of instances never take the same job, and holds it under a lease; a job whose lease
 * ran out belongs to a dead worker and is claimed again. Every write a worker makes to its job is guarded by
 * the lease, so a worker that lost its job can no longer change it. A lease is a claim's own, not the instance's:
 * {@code lease_owner} is the instance id, a slash and a token of that claim ({@link ImportJob#lease}), so that of two
 * workers of one instance, the one whose lease lapsed and the sibling that took the job over, only the second can
 * write to it. The state changes themselves (claim, release, completion, failure past the takeover limit) are
 * {@link JobLifecycle}'s; this class holds the lease.
 * <p>
 * A job whose lease ran out is taken over at most {@code ingestor.pipeline.max-takeovers} times: a job that keeps
 * bringing its workers down would otherwise take down worker after worker for ever. Past the limit it is FAILED
 * with a dead letter (stage, takeovers, attempts, the limit's property) instead of being claimed again. The claim
 * never takes such a job, so looking for one is not needed before every claim: each stage looks once per
 * {@code ingestor.pipeline.poll-interval} on this instance, and again at once after it found one.
 */
@Component
public class JobClaims {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.deadletter");
    private static final Logger PIPELINE = LoggerFactory.getLogger("dev.ingestor.pipeline");

    private final JdbcTemplate jdbc;
    private final JobLifecycle lifecycle;
    private final String owner;
    private final double leaseSeconds;
    private final DeadLetterWriter deadLetters;
    private final TransactionTemplate transactions;
    private final IngestorMetrics metrics;
    private final long poisonCheckNanos;
    private final int groupSize;
    private final long groupMaxBytes;
    private final long groupLingerNanos;
    /**
     * The leases of claims that failed, each with the jobs of its own to keep: such a claim may have committed with its
     * answer lost ({@link #unlessLost}). Bounded: past it, their jobs wait out their leases as after a crash.
     */
    private final Map<String, List<UUID>> lostClaims = new ConcurrentHashMap<>();
    private static final int LOST_CLAIMS_KEPT = 100;
    /** When each stage next looks for a job past the takeover limit (System.nanoTime). */
    private final Map<JobState, AtomicLong> nextPoisonCheck = new EnumMap<>(
            Map.of(JobState.VALIDATING, new AtomicLong(System.nanoTime()),
                    JobState.PROCESSING, new AtomicLong(System.nanoTime())));

    public JobClaims(JdbcTemplate jdbc, JobLifecycle lifecycle, InstanceId instanceId, PipelineSettings pipeline,
            DeadLetterWriter deadLetters, PlatformTransactionManager transactionManager, IngestorMetrics metrics) {
        this.jdbc = jdbc;
        this.lifecycle = lifecycle;
        this.owner = instanceId.value();
        this.leaseSeconds = pipeline.getLease().toMillis() / 1000.0;
        this.deadLetters = deadLetters;
        this.transactions = new TransactionTemplate(transactionManager);
        this.metrics = metrics;
        this.poisonCheckNanos = pipeline.getPollInterval().toNanos();
        this.groupSize = Math.max(1, pipeline.getGroupSize());
        this.groupMaxBytes = pipeline.getOnePassMaxSize().toBytes();
        this.groupLingerNanos = pipeline.getGroupLinger().toNanos();
    }

    /** This instance's part of the leases its workers hold: each is this id, a slash and the claim's token. */
    public String owner() {
        return owner;
    }

    /** A new claim's lease: this instance's id and a token no other claim has. */
    private String newLease() {
        return owner + "/" + UUID.randomUUID();
    }

    /** Validation takes RECEIVED jobs, and VALIDATING ones whose worker died. */
    public ImportJob claimForValidation() {
        return claim(JobState.RECEIVED, JobState.VALIDATING).orElse(null);
    }

    /**
     * What a validation worker takes at once: the job {@link #claimForValidation} would take and, when it is a
     * small file that waited (no takeover), the small files waiting right after it, up to
     * {@code ingestor.pipeline.group-size} files of at most {@code one-pass-max-size} each and together. The
     * group is validated and processed in one transaction (routes/validation.camel.yaml); null when nothing waits.
     */
    public List<ImportJob> claimJobsForValidation() {
        // one lease for the group: one worker holds all of its jobs
        String lease = newLease();
        Optional<JobLifecycle.Claimed> claimed = claimChecked(JobState.RECEIVED, JobState.VALIDATING,
                () -> unlessLost(lease, List.of(), () -> lifecycle.claimOne(JobState.RECEIVED, JobState.VALIDATING,
                        lease)));
        if (claimed.isEmpty()) {
            return null;
        }
        ImportJob first = claimed.get().job();
        if (groupSize <= 1 || claimed.get().takeover() || first.size() > groupMaxBytes) {
            return List.of(first);
        }
        List<ImportJob> group = new ArrayList<>();
        group.add(first);
        lingerUntilGathered(first);
        try {
            group.addAll(unlessLost(lease, List.of(first.id()),
                    () -> lifecycle.claimSmallAfter(lease, groupSize - 1, groupMaxBytes,
                            groupMaxBytes - first.size())));
        } catch (RuntimeException e) {
            // the first job is claimed and committed: it goes on alone rather than wait for its lease to lapse
            PIPELINE.warn("could not claim more small files after job {}: {}", first.id(), e.getMessage());
        }
        return group;
    }

    /**
     * Waits until {@code first} is {@code ingestor.pipeline.group-linger} old: files that arrive one by one while the
     * pipeline keeps up would otherwise each be a group of one, and a group's shared cost is what keeps the
     * pipeline up with them. A file already that old (a backlog) is not waited for.
     */
    private void lingerUntilGathered(ImportJob first) {
        long age = java.time.Duration.between(first.receivedAt(), java.time.Instant.now()).toNanos();
        long wait = groupLingerNanos - age;
        if (wait > 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(Math.min(wait, groupLingerNanos));
        }
    }

    /** Exchange property: true when the jobs on the exchange were claimed as a group of several. */
    public static final String GROUPED = "IngestorGrouped";

    /**
     * Before a job of a group goes on alone: true, with its lease extended, when the group's lease still holds it as
     * claimed (see {@link JobLifecycle#renewedFromGroup}); false when it was taken over while it waited its turn. A
     * job claimed alone goes on at once (it may be a takeover, and its lease was just given).
     */
    public boolean stillHeldFromGroup(@org.apache.camel.Body ImportJob job,
            @org.apache.camel.ExchangeProperty(GROUPED) Boolean grouped) {
        try {
            if (!Boolean.TRUE.equals(grouped) || lifecycle.renewedFromGroup(job.id(), job.lease())) {
                return true;
            }
        } catch (RuntimeException e) {
            // the database is not answering: the job goes on, and validate-job's own guards and redelivery decide
            return true;
        }
        PIPELINE.warn("job {} of a group was taken over while it waited its turn; left to the worker that holds it",
                job.id());
        return false;
    }

    /** Processing takes validated jobs (PROCESSING, unowned), and PROCESSING ones whose worker died. */
    public ImportJob claimForProcessing() {
        return claim(JobState.PROCESSING, JobState.PROCESSING).orElse(null);
    }

    private Optional<ImportJob> claim(JobState waiting, JobState working) {
        String lease = newLease();
        return claimChecked(waiting, working,
                () -> unlessLost(lease, List.of(), () -> lifecycle.claim(waiting, working, lease)));
    }

    /**
     * Runs a claim under {@code lease}; when it fails, the lease is remembered, for its claim may have committed with
     * its answer lost (the connection broke after PostgreSQL committed): the jobs it took, but for {@code keep}, are
     * handed back at the next claim of any worker here ({@link #handBackLostClaims}).
     */
    private <T> T unlessLost(String lease, List<UUID> keep, Supplier<T> claim) {
        try {
            return claim.get();
        } catch (RuntimeException e) {
            // the session lost while the claim ran; not a failure without a connection (no statement was sent), nor
            // one that fails the same way each time (a row that cannot be read: handed back, it would be claimed and
            // fail again at every poll, where its lease lapsing counts takeovers until it is failed)
            if (!(e instanceof CannotGetJdbcConnectionException) && TransientFailures.isConnectionLoss(e)
                    && lostClaims.size() < LOST_CLAIMS_KEPT) {
                lostClaims.put(lease, keep);
            }
            throw e;
        }
    }

    /** Hands back what the claims whose answers were lost may hold; each is forgotten once that has run. */
    private void handBackLostClaims() {
        for (Map.Entry<String, List<UUID>> lost : lostClaims.entrySet()) {
            try {
                int released = lifecycle.releasedUnknownClaim(lost.getKey(), lost.getValue());
                lostClaims.remove(lost.getKey());
                if (released > 0) {
                    PIPELINE.warn("handed back {} job(s) a claim whose answer was lost had taken (lease {})",
                            released, lost.getKey());
                }
            } catch (RuntimeException e) {
                // the database still does not answer: the next claim tries again
                return;
            }
        }
    }

    /**
     * {@code claim}, after this stage's look for a job past the takeover limit when one is due, and after the jobs of
     * claims whose answers were lost are handed back.
     */
    private <T> T claimChecked(JobState waiting, JobState working, Supplier<T> claim) {
        if (!lostClaims.isEmpty()) {
            handBackLostClaims();
        }
        AtomicLong next = nextPoisonCheck.get(working);
        long due = next.get();
        long now = System.nanoTime();
        // one worker of the stage looks, the others claim on; a job failed means there may be another
        if (now - due >= 0 && next.compareAndSet(due, now + poisonCheckNanos) && failPoisonJob(working)) {
            next.set(now);
        }
        return claim.get();
    }

    /**
     * Fails one job of {@code working} whose lease ran out once more after its last allowed takeover, with a
     * dead letter and its event, in one transaction. Another instance doing the same skips the locked row.
     */
    private boolean failPoisonJob(JobState working) {
        String stage = working == JobState.VALIDATING ? DeadLetters.VALIDATION : DeadLetters.PROCESSING;
        DeadLetterWriter.Failure failed = transactions
                .execute(status -> lifecycle.lockPastTakeoverLimit(working).map(job -> {
                    TakeoverLimitException reason = new TakeoverLimitException(stage, job.takeovers(),
                            lifecycle.maxTakeovers());
                    DeadLetterWriter.Failure failure = new DeadLetterWriter.Failure(job.jobId(), job.supplier(),
                            job.key(), stage,
                            reason.getClass().getName(), reason.getMessage(), Math.max(1, job.attempts()));
                    long letter = deadLetters.write(failure, true);
                    lifecycle.failedPastTakeoverLimit(job.jobId(), FailedJobError.of(stage, letter, failure.message()));
                    return failure;
                }).orElse(null));
        if (failed != null) {
            metrics.deadLetter(stage);
            LOG.error("dead letter supplier={} job={} key={} stage={} attempts={} exception={} message=\"{}\"",
                    failed.supplier(), failed.jobId(), failed.key(), stage, failed.attempts(), failed.exception(),
                    failed.message());
        }
        return failed != null;
    }

    /**
     * At an orderly shutdown, after the routes have stopped, hands back the jobs this instance still holds as
     * waiting jobs, not as lapsed leases: a restart or a rolling deploy is not a worker the job brought down,
     * so it must not count against {@code ingestor.pipeline.max-takeovers}. Validation starts again (it
     * always reads the whole file); processing resumes from its checkpoint. A killed instance never gets here:
     * its leases lapse and their takeovers count.
     */
    @PreDestroy
    public int releaseOnShutdown() {
        try {
            int released = lifecycle.releasedOnShutdown(owner);
            if (released > 0) {
                LOG.info(
                        "shutdown of instance {}: handed back {} job(s) it held, to be claimed again without a takeover",
                        owner, released);
            }
            return released;
        } catch (RuntimeException e) {
            // the database may be gone already; the leases then lapse and are taken over as after a crash
            LOG.warn("shutdown of instance {}: could not hand back its jobs: {}", owner, e.getMessage());
            return 0;
        }
    }

    /** Extends the job's lease; false when another worker has taken the job over. */
    public boolean renew(ImportJob job) {
        return jdbc.update("UPDATE import_job SET lease_until = now() + make_interval(secs => ?)"
                + " WHERE id = ? AND lease_owner = ?", leaseSeconds, job.id(), job.lease()) == 1;
    }

    /**
     * Where a processing run of a job this worker holds starts: the committed checkpoint, read again under the
     * lease (which it extends). Every run and every retry of the stage starts here, never from the job as it was
     * claimed, so the batches an earlier attempt committed are never applied again. Throws
     * {@link LeaseLostException} when the job is no longer this worker's to process.
     */
    public long resumePoint(ImportJob job) {
        List<Long> done = jdbc.queryForList("UPDATE import_job SET lease_until = now() + make_interval(secs => ?)"
                + " WHERE id = ? AND lease_owner = ? AND state = 'PROCESSING' RETURNING records_done",
                Long.class, leaseSeconds, job.id(), job.lease());
        if (done.isEmpty()) {
            throw new LeaseLostException(job.id());
        }
        return done.get(0);
    }

    /**
     * Records processing progress from {@code from} to {@code recordsDone} records read, adds the batch's outcome
     * counts and extends the lease; called inside the batch's transaction. The checkpoint must still stand at
     * {@code from}: it never moves backwards and no range of records is counted twice, whatever run of the job
     * (a retry, a sibling worker's takeover) got there first. Otherwise, or with the lease lost, it throws and
     * the batch rolls back.
     */
    public void checkpoint(ImportJob job, long from, long recordsDone, long accepted, long updated, long replayed) {
        int written = jdbc.update(
                "UPDATE import_job SET records_done = ?, accepted = accepted + ?, updated = updated + ?,"
                        + " replayed = replayed + ?, lease_until = now() + make_interval(secs => ?), updated_at = now()"
                        + " WHERE id = ? AND lease_owner = ? AND state = 'PROCESSING' AND records_done = ?",
                recordsDone, accepted, updated, replayed, leaseSeconds, job.id(), job.lease(), from);
        if (written != 1) {
            throw new LeaseLostException(job.id());
        }
    }

    /**
     * The processing stage applied the last batch of the job it holds: its checkpoint (from {@code from}, as
     * {@link #checkpoint}) and {@link JobLifecycle#completed}, guarded by the job's lease, in the batch's
     * transaction. False when the lease was lost or the checkpoint moved.
     */
    public boolean completed(ImportJob job, JobState end, long from, long recordsDone, long accepted, long updated,
            long replayed) {
        return lifecycle.completed(job.id(), job.lease(), end, from, recordsDone, accepted, updated, replayed);
    }

    public void requireLease(ImportJob job) {
        if (!renew(job)) {
            throw new LeaseLostException(job.id());
        }
    }

    /**
     * Keeps the lease of {@code job} while a stage reads its file: run it for each record read, and
     * every third of the lease it renews the lease ({@link #requireLease}, which throws when the job was taken over).
     * A lease is otherwise renewed by a stage's writes (a processing checkpoint, a validation's thousand quarantined
     * rows), and a file read longer than the lease between two of them (a large clean file, a slow volume, a hook
     * that calls out for each record) would be taken over while it is still read, and again, until its takeovers
     * ran out. Call it outside a transaction that holds the job's row.
     */
    public Runnable leaseKeeper(ImportJob job) {
        long every = (long) (leaseSeconds * 1e9 / 3);
        long[] renewed = {System.nanoTime()};
        return () -> {
            long now = System.nanoTime();
            if (now - renewed[0] >= every) {
                requireLease(job);
                renewed[0] = now;
            }
        };
    }
}
