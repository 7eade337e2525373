package dev.ingestor.job;

import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import dev.ingestor.notification.NotificationWriter;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.event.TransactionalEventListener;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Every change of an import job's state, each a named transition with the guard that makes it safe. A job is
 * born in {@link ImportJobStore} (RECEIVED, REJECTED when empty, or at rest for an item batch processed while
 * its caller waited); from then on its state changes here and nowhere else.
 *
 * <pre>
 *   stage workers (guarded by the lease: only the worker that holds the job may move it)
 *     claim                  RECEIVED → VALIDATING, waiting for processing → PROCESSING held;
 *                            or a job whose lease lapsed, taken over
 *     validated              VALIDATING → PROCESSING, waiting for processing
 *     validatedAndHeld       VALIDATING → PROCESSING held by the same worker (a small file, processed at once)
 *     claimSmallAfter        RECEIVED → VALIDATING: more small files for a worker that holds one (a group)
 *     completedGroup         VALIDATING → at rest: a group of small files validated and processed together
 *     completed / rejected / failed   → at rest, lease given up
 *     releasedOnShutdown     VALIDATING → RECEIVED, PROCESSING → waiting for processing (no takeover counted)
 *     releasedUnknownClaim   the same, for the jobs a claim whose answer was lost may hold
 *     validatedEarlier       PROCESSING held → waiting for processing: validation's own earlier attempt committed
 *   lapsed leases
 *     failedPastTakeoverLimit   a job whose lease lapsed once more after its last allowed takeover → FAILED
 *   operators (only a job at rest: one a worker holds is never touched)
 *     revalidate             at rest → RECEIVED (validation clears the quarantine as it starts)
 *     reprocess              COMPLETED, COMPLETED_WITH_ERRORS, FAILED (validated once) → waiting for processing
 *     resumeAfterDeadLetter  FAILED → back to the stage that failed
 * </pre>
 *
 * <b>Waiting for processing</b> is PROCESSING with no lease owner: validation has finished and no processing
 * worker holds the job yet. It is not a state of its own because the job states are a published contract; the
 * lease owner tells the two moments apart, and the claim's guard {@code lease_owner IS NULL} is what "waiting"
 * means for every state.
 * <p>
 * Every transition that brings a job to rest, or sends it round again, sets {@code takeovers} back to 0: takeovers
 * are counted per run of a stage, so an earlier run cannot use up the allowance of the next.
 */
@Component
public class JobLifecycle {

    /** Reprocessing reads the records validation left; a REJECTED job was never validated. */
    private static final Set<JobState> REPROCESSABLE = EnumSet.of(JobState.COMPLETED, JobState.COMPLETED_WITH_ERRORS,
            JobState.FAILED);

    private static final String AT_REST = inList(JobState.AT_REST);

    /**
     * What every transition that brings a job to rest sets: the lease given up, and takeovers back to 0 (a later
     * run, an operator's retry, starts with the full allowance).
     */
    private static final String COMES_TO_REST = "lease_owner = NULL, lease_until = NULL, takeovers = 0, updated_at = now()";

    /**
     * What both ends of validation set: PROCESSING with the record and quarantine counts, processing's counts from
     * zero, and takeovers back to 0 (counted per stage: validation's must not use up processing's allowance).
     * Parameters: total, quarantined.
     */
    private static final String VALIDATED = "state = 'PROCESSING', total = ?, quarantined = ?, records_done = 0,"
            + " accepted = 0, updated = 0, replayed = 0, error = NULL, takeovers = 0, updated_at = now()";

    /**
     * The guard of both ends of validation: the job is this owner's and still in validation. The lease owner is the
     * instance, so the state is what tells this worker's run from a sibling worker's takeover. Parameters: id, owner.
     */
    private static final String HELD_IN_VALIDATION = " WHERE id = ? AND lease_owner = ? AND state = 'VALIDATING'";

    /** This instance's operator transitions out of rest, each counted once committed ({@link #sentBackToWork}). */
    private final AtomicLong sentBackToWork = new AtomicLong();

    /** An operator transition moved a job out of rest; published where it happened, counted once committed. */
    record SentBackToWork() {
    }

    private final JdbcTemplate jdbc;
    private final NotificationWriter notifications;
    private final ApplicationEventPublisher events;
    private final TransactionTemplate transactions;
    private final double leaseSeconds;
    private final int maxTakeovers;

    public JobLifecycle(JdbcTemplate jdbc, PipelineSettings pipeline, PlatformTransactionManager transactionManager,
            NotificationWriter notifications, ApplicationEventPublisher events) {
        this.jdbc = jdbc;
        this.notifications = notifications;
        this.events = events;
        this.transactions = new TransactionTemplate(transactionManager);
        this.leaseSeconds = pipeline.getLease().toMillis() / 1000.0;
        this.maxTakeovers = Math.max(0, pipeline.getMaxTakeovers());
    }

    /** How many times a job whose lease lapsed is taken over before it fails instead. */
    public int maxTakeovers() {
        return maxTakeovers;
    }

    // ---- stage workers

    /**
     * Gives {@code owner} the oldest job waiting in {@code waiting} (no lease owner), or one in {@code working}
     * whose lease ran out with takeovers left, and moves it to {@code working} under a lease. A job with a lease
     * owner is taken over from a worker that stopped answering: that counts as a takeover.
     */
    public Optional<ImportJob> claim(JobState waiting, JobState working, String owner) {
        return claimOne(waiting, working, owner).map(Claimed::job);
    }

    /** A job just claimed, and whether it was taken over from a worker whose lease lapsed. */
    public record Claimed(ImportJob job, boolean takeover) {
    }

    /** {@link #claim}, telling a job that waited from one taken over. */
    public Optional<Claimed> claimOne(JobState waiting, JobState working, String owner) {
        // two questions, each answered by an index of its own (V14): the oldest job waiting, and the oldest of
        // this stage whose lease lapsed; the older of the two is taken. The states are enum names written into
        // the statement, so the partial indexes serve its generic plan too
        List<Claimed> claimed = jdbc.query("WITH waiting AS (SELECT id, received_at FROM import_job"
                + "   WHERE state = '" + waiting.name() + "' AND lease_owner IS NULL"
                + "   ORDER BY received_at, id LIMIT 1 FOR UPDATE SKIP LOCKED),"
                + " lapsed AS (SELECT id, received_at FROM import_job"
                + "   WHERE state = '" + working.name() + "' AND lease_owner IS NOT NULL AND lease_until < now()"
                + "   AND takeovers < ? ORDER BY received_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)"
                + " UPDATE import_job SET state = ?, lease_owner = ?,"
                + " lease_until = now() + make_interval(secs => ?), attempts = attempts + 1,"
                + " takeovers = takeovers + CASE WHEN lease_owner IS NULL THEN 0 ELSE 1 END, updated_at = now()"
                + " WHERE id = (SELECT id FROM (SELECT * FROM waiting UNION ALL SELECT * FROM lapsed) candidate"
                + "   ORDER BY received_at, id LIMIT 1)"
                + " RETURNING " + ImportJobStore.COLUMNS + ", takeovers",
                (rs, row) -> new Claimed(ImportJobStore.JOB.mapRow(rs, row), rs.getInt("takeovers") > 0),
                maxTakeovers, working.name(), owner, leaseSeconds);
        return claimed.stream().findFirst();
    }

    /**
     * More RECEIVED jobs for {@code owner}, who holds one already, to validate and process as a group: the
     * oldest waiting jobs, up to {@code count}, as long as each has at most {@code maxSize} bytes and all of them
     * at most {@code maxTotal} together. The jobs are taken from the front of the queue and the first larger one
     * ends the group, so a large file is not passed over by small ones that came after it (only while another
     * worker's claim holds it locked, for the moment of that claim). Moved to VALIDATING
     * under a lease as {@link #claim} moves a waiting job; never a lapsed lease (a takeover is claimed alone).
     * Oldest first.
     */
    public List<ImportJob> claimSmallAfter(String owner, int count, long maxSize, long maxTotal) {
        if (count <= 0 || maxTotal <= 0) {
            return List.of();
        }
        // a job handed back at a shutdown after a takeover keeps its takeovers: it is claimed alone, as a takeover is
        List<Object[]> claimed = jdbc.query("WITH next AS MATERIALIZED (SELECT id, received_at, size, takeovers"
                + "   FROM import_job WHERE state = 'RECEIVED' AND lease_owner IS NULL"
                + "   ORDER BY received_at, id LIMIT ? FOR UPDATE SKIP LOCKED),"
                + " front AS (SELECT id AS front_id, row_number() OVER w AS place, sum(size) OVER w AS through,"
                + "   count(*) FILTER (WHERE size > ? OR takeovers > 0) OVER w AS alone"
                + "   FROM next WINDOW w AS (ORDER BY received_at, id))"
                + " UPDATE import_job SET state = 'VALIDATING', lease_owner = ?,"
                + " lease_until = now() + make_interval(secs => ?), attempts = attempts + 1, updated_at = now()"
                + " FROM front WHERE id = front_id AND alone = 0 AND through <= ?"
                + " RETURNING " + ImportJobStore.COLUMNS + ", place",
                (rs, row) -> new Object[] {ImportJobStore.JOB.mapRow(rs, row), rs.getLong("place")},
                count, maxSize, owner, leaseSeconds, maxTotal);
        // in the order of the queue (RETURNING has none)
        return claimed.stream().sorted(java.util.Comparator.comparingLong(c -> (Long) c[1])).map(c -> (ImportJob) c[0])
                .toList();
    }

    /**
     * The validation stage is done: the job waits for processing (PROCESSING, no lease owner) with its record
     * and quarantine counts, and processing counts from zero. False when {@code owner} lost the lease.
     */
    public boolean validated(UUID jobId, String owner, long total, long quarantined) {
        return jdbc.update("UPDATE import_job SET " + VALIDATED + ", lease_owner = NULL, lease_until = NULL"
                + HELD_IN_VALIDATION, total, quarantined, jobId, owner) == 1;
    }

    /**
     * The validation stage is done with a small file and its worker goes on to process it: the job moves to
     * PROCESSING still held by {@code owner}, as if a processing worker had claimed it at once (attempts + 1, a
     * fresh lease, takeovers from 0), with its record and quarantine counts. Answers the job as processing sees
     * it; empty when {@code owner} lost the lease.
     */
    public Optional<ImportJob> validatedAndHeld(UUID jobId, String owner, long total, long quarantined) {
        return jdbc.query("UPDATE import_job SET " + VALIDATED + ", lease_until = now() + make_interval(secs => ?),"
                + " attempts = attempts + 1" + HELD_IN_VALIDATION + " RETURNING " + ImportJobStore.COLUMNS,
                ImportJobStore.JOB, total, quarantined, leaseSeconds, jobId, owner).stream().findFirst();
    }

    /**
     * Processing applied every record: COMPLETED or COMPLETED_WITH_ERRORS, with the last batch's checkpoint
     * ({@code from} to {@code recordsDone}, the counts it adds) in the same statement. False when the lease was lost
     * or the checkpoint no longer stands at {@code from} (another run of the job committed that range). Throws {@link
     * CountsDisagreeException}, for the caller's transaction to roll back, when processing's records do not add up to
     * validation's: every record validation counted is applied or quarantined, never passed over unseen.
     */
    public boolean completed(UUID jobId, String owner, JobState end, long from, long recordsDone, long accepted,
            long updated, long replayed) {
        if (end != JobState.COMPLETED && end != JobState.COMPLETED_WITH_ERRORS) {
            throw new IllegalArgumentException("a job completes as COMPLETED or COMPLETED_WITH_ERRORS, not " + end);
        }
        record Counted(long total, long quarantined, long applied, long read) {
        }
        List<Counted> counts = jdbc.query("UPDATE import_job SET state = ?, error = NULL, " + COMES_TO_REST
                + ", records_done = ?, accepted = accepted + ?, updated = updated + ?, replayed = replayed + ?"
                + " WHERE id = ? AND lease_owner = ? AND state = 'PROCESSING' AND records_done = ?"
                + " RETURNING total, quarantined, accepted + updated + replayed, records_done",
                (rs, n) -> new Counted(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)),
                end.name(), recordsDone, accepted, updated, replayed, jobId, owner, from);
        if (counts.isEmpty()) {
            return false;
        }
        Counted counted = counts.get(0);
        if (counted.quarantined() + counted.applied() != counted.total() || counted.read() != counted.total()) {
            throw new CountsDisagreeException(jobId, counted.total(), counted.quarantined(), counted.applied(),
                    counted.read());
        }
        return true;
    }

    /** What a group's validation and processing came to for one of its jobs. */
    public record GroupResult(UUID jobId, JobState end, long total, long quarantined, long accepted, long updated,
            long replayed) {
    }

    /**
     * A group of small files {@code owner} validated and processed in the caller's transaction: each comes to rest,
     * COMPLETED or COMPLETED_WITH_ERRORS, with all its counts and every record done, as {@link #validatedAndHeld}
     * and {@link #completed} together would leave it (one attempt of each stage). Guarded as both (the jobs must
     * still be held by the group's lease and in validation) and by takeovers still 0, as a group is claimed. Answers
     * the jobs it completed; fewer than given means a lease was lost.
     */
    public List<UUID> completedGroup(String owner, List<GroupResult> results) {
        int n = results.size();
        UUID[] ids = new UUID[n];
        String[] states = new String[n];
        Long[][] counts = new Long[5][n];
        for (int i = 0; i < n; i++) {
            GroupResult r = results.get(i);
            if (r.end() != JobState.COMPLETED && r.end() != JobState.COMPLETED_WITH_ERRORS) {
                throw new IllegalArgumentException(
                        "a job completes as COMPLETED or COMPLETED_WITH_ERRORS, not " + r.end());
            }
            ids[i] = r.jobId();
            states[i] = r.end().name();
            counts[0][i] = r.total();
            counts[1][i] = r.quarantined();
            counts[2][i] = r.accepted();
            counts[3][i] = r.updated();
            counts[4][i] = r.replayed();
        }
        List<UUID> done = jdbc.execute((java.sql.Connection c) -> {
            try (java.sql.PreparedStatement ps = c
                    .prepareStatement("UPDATE import_job j SET state = v.state, total = v.total,"
                            + " quarantined = v.quarantined, records_done = v.total, accepted = v.accepted, updated = v.updated,"
                            + " replayed = v.replayed, error = NULL, attempts = j.attempts + 1, " + COMES_TO_REST
                            + " FROM unnest(?::uuid[], ?::text[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[])"
                            + "   AS v(id, state, total, quarantined, accepted, updated, replayed)"
                            + " WHERE j.id = v.id AND j.lease_owner = ? AND j.state = 'VALIDATING' AND j.takeovers = 0 RETURNING j.id")) {
                ps.setArray(1, c.createArrayOf("uuid", ids));
                ps.setArray(2, c.createArrayOf("text", states));
                for (int k = 0; k < 5; k++) {
                    ps.setArray(3 + k, c.createArrayOf("bigint", counts[k]));
                }
                ps.setString(8, owner);
                List<UUID> completed = new java.util.ArrayList<>();
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        completed.add(rs.getObject(1, UUID.class));
                    }
                }
                return completed;
            }
        });
        return done == null ? List.of() : done;
    }

    /**
     * Extends the lease on a job {@code owner} claimed for a group and has not finished, when it is still held as
     * claimed: in validation, by the group's lease, and never taken over (takeovers 0, as a group is claimed). A job
     * whose lease lapsed while it waited its turn, and that another worker took over, is left to that worker.
     */
    public boolean renewedFromGroup(UUID jobId, String owner) {
        return jdbc.update("UPDATE import_job SET lease_until = now() + make_interval(secs => ?)"
                + " WHERE id = ? AND lease_owner = ? AND state = 'VALIDATING' AND takeovers = 0", leaseSeconds, jobId,
                owner) == 1;
    }

    /**
     * The file cannot be read as a whole: VALIDATING → REJECTED, final. False when the lease was lost, or the job is
     * past validation.
     */
    public boolean rejected(UUID jobId, String owner, String reason) {
        // only in validation: a job in processing may have applied batches, and REJECTED says none were
        return jdbc.update("UPDATE import_job SET state = 'REJECTED', error = ?, " + COMES_TO_REST
                + " WHERE id = ? AND lease_owner = ? AND state = 'VALIDATING'", reason, jobId, owner) == 1;
    }

    /** A failure outlasted its redelivery (the dead-letter channel): FAILED. False when the lease was lost. */
    public boolean failed(UUID jobId, String owner, String error) {
        // toRest's statement, returning what the notification (same transaction) names
        return !notifyFailed(jdbc.query("UPDATE import_job SET state = 'FAILED', error = ?, " + COMES_TO_REST
                + " WHERE id = ? AND lease_owner = ? RETURNING supplier, key",
                (rs, n) -> new String[] {rs.getString(1), rs.getString(2)}, error, jobId, owner),
                jobId, error).isEmpty();
    }

    /** Queues the job.failed notification of each job just FAILED (none or one) in the caller's transaction. */
    private List<String[]> notifyFailed(List<String[]> failed, UUID jobId, String error) {
        failed.forEach(job -> notifications.jobFailed(jobId, job[0], job[1], error));
        return failed;
    }

    /**
     * At an orderly shutdown, the jobs the workers of {@code instance} hold (their leases are the instance id, a
     * slash and a claim's token) go back to waiting, not to lapsed leases, so claiming them again is no takeover:
     * validation starts again (it always reads the whole file), processing resumes from its checkpoint. Returns how
     * many jobs were handed back.
     */
    public int releasedOnShutdown(String instance) {
        // starts_with, not LIKE, which would read an id's '_' or '%' as a wildcard
        return jdbc
                .update("UPDATE import_job SET state = CASE WHEN state = 'VALIDATING' THEN 'RECEIVED' ELSE state END,"
                        + " lease_owner = NULL, lease_until = NULL, updated_at = now()"
                        + " WHERE starts_with(lease_owner, ? || '/') AND state IN ('VALIDATING', 'PROCESSING')",
                        instance);
    }

    /**
     * Hands back, as at a shutdown, the jobs that {@code lease} holds but for {@code keep}: a claim under it whose
     * answer was lost (the connection broke after PostgreSQL committed) may have taken jobs that no worker knows it
     * holds, which would otherwise wait out the whole lease and then count a takeover. A takeover such a claim made
     * stays counted. Returns how many jobs were handed back.
     */
    public int releasedUnknownClaim(String lease, Collection<UUID> keep) {
        return jdbc.update(
                "UPDATE import_job SET state = CASE WHEN state = 'VALIDATING' THEN 'RECEIVED' ELSE state END,"
                        + " lease_owner = NULL, lease_until = NULL, updated_at = now()"
                        + " WHERE lease_owner = ? AND id <> ALL (?::uuid[]) AND state IN ('VALIDATING', 'PROCESSING')",
                lease,
                keep.toArray(UUID[]::new));
    }

    /** The state of job {@code jobId} while {@code lease} holds it; empty when it does not (or the job is gone). */
    public Optional<JobState> heldBy(UUID jobId, String lease) {
        return jdbc.queryForList("SELECT state FROM import_job WHERE id = ? AND lease_owner = ?", String.class, jobId,
                lease).stream().map(JobState::valueOf).findFirst();
    }

    /**
     * A job validation's earlier attempt took to processing still held ({@link #validatedAndHeld}), whose answer was
     * lost: handed on to processing's workers, waiting, its validation and quarantine as that attempt left them.
     */
    public boolean validatedEarlier(UUID jobId, String lease) {
        return jdbc.update("UPDATE import_job SET lease_owner = NULL, lease_until = NULL, updated_at = now()"
                + " WHERE id = ? AND lease_owner = ? AND state = 'PROCESSING'", jobId, lease) == 1;
    }

    // ---- lapsed leases

    /** A job of {@code working} whose lease lapsed once more after its last allowed takeover. */
    public record PastTakeoverLimit(UUID jobId, String supplier, String key, int attempts, int takeovers) {
    }

    /**
     * Finds and locks one job of {@code working} whose lease ran out with no takeover left: the complement of
     * {@link #claim}'s takeover guard. Runs in the caller's transaction, which then calls
     * {@link #failedPastTakeoverLimit}; another instance doing the same skips the locked row.
     */
    public Optional<PastTakeoverLimit> lockPastTakeoverLimit(JobState working) {
        return jdbc.query("SELECT id, supplier, key, attempts, takeovers FROM import_job"
                + " WHERE state = ? AND lease_owner IS NOT NULL AND lease_until < now() AND takeovers >= ?"
                + " ORDER BY received_at, id LIMIT 1 FOR UPDATE SKIP LOCKED",
                (rs, row) -> new PastTakeoverLimit(rs.getObject("id", UUID.class), rs.getString("supplier"),
                        rs.getString("key"), rs.getInt("attempts"), rs.getInt("takeovers")),
                working.name(), maxTakeovers).stream().findFirst();
    }

    /** The job found by {@link #lockPastTakeoverLimit} kept bringing its workers down: FAILED, lease cleared. */
    public void failedPastTakeoverLimit(UUID jobId, String error) {
        notifyFailed(jdbc.query("UPDATE import_job SET state = 'FAILED', error = ?, " + COMES_TO_REST
                + " WHERE id = ? RETURNING supplier, key",
                (rs, n) -> new String[] {rs.getString(1), rs.getString(2)}, error, jobId), jobId, error);
    }

    // ---- operators

    /**
     * A job at rest back to RECEIVED: validation reads the file again, its counts start from nothing, and so does its
     * quarantine, which validation clears as it starts (as after any interruption). Not here: a file of millions of
     * bad records has that many rows, and deleting them here would hold the job's row for minutes, where a duplicate
     * arrival and the counts of repeated pushes wait on it. False when the job is not at rest (a worker holds it) or
     * unknown.
     */
    public boolean revalidate(UUID jobId) {
        return revalidate(jobId, null);
    }

    /**
     * As {@link #revalidate(UUID)}, only while the job is in {@code expected} (null: any state at rest): an operator
     * acting on a row they saw FAILED does not send round a job that has finished since.
     */
    public boolean revalidate(UUID jobId, JobState expected) {
        return sentBack(jdbc.update(
                "UPDATE import_job SET state = 'RECEIVED', total = 0, accepted = 0, updated = 0, replayed = 0,"
                        + " quarantined = 0, records_done = 0, rerun = true, " + APPLIED_BEFORE + ", error = NULL,"
                        + " lease_owner = NULL, lease_until = NULL, attempts = 0, takeovers = 0, updated_at = now()"
                        + " WHERE id = ? AND state IN " + AT_REST + " AND state = coalesce(?, state)",
                jobId, expected == null ? null : expected.name()) == 1);
    }

    /**
     * Whether an earlier run of the job may have applied records, judged from the state it is sent round from (the
     * row as the UPDATE reads it): finished, or processing checkpointed; kept once true, by every action that sends a
     * job round. A REJECTED job, or one that failed before processing committed a batch, applied nothing (V30).
     */
    private static final String APPLIED_BEFORE = "applied_before = applied_before"
            + " OR state IN ('COMPLETED', 'COMPLETED_WITH_ERRORS') OR records_done > 0";

    /** Whether an earlier run of the job may have applied records ({@link #APPLIED_BEFORE}); false when unknown. */
    public boolean appliedBefore(UUID jobId) {
        return jdbc.queryForList("SELECT applied_before FROM import_job WHERE id = ?", Boolean.class, jobId).stream()
                .anyMatch(Boolean.TRUE::equals);
    }

    /**
     * A finished, validated job back to waiting for processing from its first record; the quarantine and the
     * record counts stay as validation left them. False when it is not at rest, was never validated (REJECTED,
     * or no records), or is unknown.
     */
    public boolean reprocess(UUID jobId) {
        return reprocess(jobId, null);
    }

    /** As {@link #reprocess(UUID)}, only while the job is in {@code expected} (null: any it may be sent from). */
    public boolean reprocess(UUID jobId, JobState expected) {
        return sentBack(
                jdbc.update(
                        "UPDATE import_job SET state = 'PROCESSING', " + APPLIED_BEFORE + ", records_done = 0,"
                                + " rerun = true, accepted = 0, updated = 0, replayed = 0, error = NULL,"
                                + " lease_owner = NULL, lease_until = NULL, attempts = 0, takeovers = 0, updated_at = now()"
                                + " WHERE id = ? AND total > 0 AND state IN " + inList(REPROCESSABLE)
                                + " AND state = coalesce(?, state)",
                        jobId, expected == null ? null : expected.name()) == 1);
    }

    /** A FAILED job and the stage its last dead letter names. */
    public record FailedJob(UUID jobId, String stage) {
    }

    /**
     * Locks the job of dead letter {@code deadLetterId} for the caller's transaction, before the letter itself: the
     * order in which retrying a supplier's failed jobs ({@link #lockFailed}, then their letters) and retention (the
     * job, then its letters by cascade) take them, so that none of them waits on another in a circle. False when
     * the letter or its job is gone.
     */
    public boolean lockJobOfDeadLetter(long deadLetterId) {
        return !jdbc.queryForList("SELECT j.id FROM import_job j JOIN dead_letter d ON d.job_id = j.id"
                + " WHERE d.id = ? FOR UPDATE OF j", UUID.class, deadLetterId).isEmpty();
    }

    /**
     * The FAILED jobs of {@code supplier}, locked in the caller's transaction, each with the stage that failed (as
     * {@link DeadLetterStore#failedStage} says it).
     */
    public List<FailedJob> lockFailed(String supplier) {
        return jdbc.query("SELECT j.id, " + DeadLetterStore.FAILED_STAGE_OF_J + " AS stage FROM import_job j"
                + " WHERE j.supplier = ? AND j.state = 'FAILED' FOR UPDATE OF j",
                (rs, row) -> new FailedJob(rs.getObject("id", UUID.class), rs.getString("stage")), supplier);
    }

    /**
     * A FAILED job back to the stage that failed: processing waits again and resumes from its checkpoint (if
     * validation counted any records), anything else starts again at RECEIVED. Either way it is a re-run: jobs may
     * have written its items since it failed, and its records after the checkpoint must not undo what they wrote.
     * False when the job is not FAILED.
     */
    public boolean resumeAfterDeadLetter(UUID jobId, String stage) {
        if ("processing".equals(stage)) {
            return sentBack(jdbc.update(
                    "UPDATE import_job SET state = 'PROCESSING', rerun = true, " + APPLIED_BEFORE + ", error = NULL,"
                            + " lease_owner = NULL, lease_until = NULL,"
                            + " attempts = 0, takeovers = 0, updated_at = now() WHERE id = ? AND state = 'FAILED' AND total > 0",
                    jobId) == 1);
        }
        return sentBack(jdbc
                .update("UPDATE import_job SET state = 'RECEIVED', total = 0, accepted = 0, updated = 0, replayed = 0,"
                        + " quarantined = 0, records_done = 0, rerun = true, " + APPLIED_BEFORE + ", error = NULL,"
                        + " lease_owner = NULL, lease_until = NULL, attempts = 0, takeovers = 0, updated_at = now()"
                        + " WHERE id = ? AND state = 'FAILED'", jobId) == 1);
    }

    /**
     * How many times this instance has sent a job at rest back to work, each counted once its transaction
     * committed. Whoever keeps a job at rest as it read it (a repeated push's answer, {@code DuplicatePushCounts})
     * notes this before the read and drops its copy as soon as it has moved; another instance's operators reach
     * it only through the database.
     */
    public long sentBackToWork() {
        return sentBackToWork.get();
    }

    /** Counts a job sent back to work after the surrounding transaction commits (at once outside one). */
    private boolean sentBack(boolean moved) {
        if (moved) {
            events.publishEvent(new SentBackToWork());
        }
        return moved;
    }

    /**
     * After the commit of the transaction that sent the job back ({@code fallbackExecution}: at once when the
     * transition ran in no transaction, its statement committed by itself); never after a rollback.
     */
    @TransactionalEventListener(fallbackExecution = true)
    void count(SentBackToWork event) {
        sentBackToWork.incrementAndGet();
    }

    /** {@code ('A', 'B')} in declaration order: enum names, so safe to write into the statement. */
    private static String inList(Set<JobState> states) {
        return java.util.Arrays.stream(JobState.names(states)).map(name -> "'" + name + "'")
                .collect(Collectors.joining(", ", "(", ")"));
    }
}
