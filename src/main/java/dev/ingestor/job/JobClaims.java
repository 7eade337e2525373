package dev.ingestor.job;

import java.util.List;
import java.util.Optional;
import java.util.UUID;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.InstanceId;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Which worker owns which job. A stage claims the oldest waiting job with {@code FOR UPDATE SKIP LOCKED}, so
 * workers in any number of instances never take the same job, and holds it under a lease; a job whose lease
 * ran out belongs to a dead worker and is claimed again. Every write a worker makes to its job is guarded by
 * the lease, so a worker that lost its job can no longer change it.
 */
@Component
public class JobClaims {

    private final JdbcTemplate jdbc;
    private final String owner;
    private final double leaseSeconds;

    public JobClaims(JdbcTemplate jdbc, InstanceId instanceId, IngestorProperties properties) {
        this.jdbc = jdbc;
        this.owner = instanceId.value();
        this.leaseSeconds = properties.getPipeline().getLease().toMillis() / 1000.0;
    }

    public String owner() {
        return owner;
    }

    /** Validation takes RECEIVED jobs, and VALIDATING ones whose worker died. */
    public ImportJob claimForValidation() {
        return claim(JobState.RECEIVED, JobState.VALIDATING).orElse(null);
    }

    /** Processing takes validated jobs (PROCESSING, unowned), and PROCESSING ones whose worker died. */
    public ImportJob claimForProcessing() {
        return claim(JobState.PROCESSING, JobState.PROCESSING).orElse(null);
    }

    private Optional<ImportJob> claim(JobState waiting, JobState working) {
        List<ImportJob> claimed = jdbc.query("UPDATE import_job SET state = ?, lease_owner = ?,"
                        + " lease_until = now() + make_interval(secs => ?), attempts = attempts + 1, updated_at = now()"
                        + " WHERE id = (SELECT id FROM import_job"
                        + "   WHERE (state = ? AND lease_owner IS NULL) OR (state = ? AND lease_until < now())"
                        + "   ORDER BY received_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)"
                        + " RETURNING " + ImportJobStore.COLUMNS,
                ImportJobStore.JOB, working.name(), owner, leaseSeconds, waiting.name(), working.name());
        return claimed.stream().findFirst();
    }

    /** Extends the lease; false when another worker has taken the job over. */
    public boolean renew(UUID jobId) {
        return jdbc.update("UPDATE import_job SET lease_until = now() + make_interval(secs => ?)"
                + " WHERE id = ? AND lease_owner = ?", leaseSeconds, jobId, owner) == 1;
    }

    /**
     * Records processing progress (records read so far, outcome counts added) and extends the lease; called
     * inside the batch's transaction, so a lost lease rolls the batch back.
     */
    public void checkpoint(UUID jobId, long recordsDone, long accepted, long updated, long replayed) {
        int written = jdbc.update("UPDATE import_job SET records_done = ?, accepted = accepted + ?, updated = updated + ?,"
                        + " replayed = replayed + ?, lease_until = now() + make_interval(secs => ?), updated_at = now()"
                        + " WHERE id = ? AND lease_owner = ?",
                recordsDone, accepted, updated, replayed, leaseSeconds, jobId, owner);
        if (written != 1) {
            throw new LeaseLostException(jobId);
        }
    }

    /** Moves the job on and gives up the lease; false when the lease was lost. */
    public boolean finish(UUID jobId, JobState next, String error) {
        return jdbc.update("UPDATE import_job SET state = ?, error = ?, lease_owner = NULL, lease_until = NULL,"
                + " updated_at = now() WHERE id = ? AND lease_owner = ?", next.name(), error, jobId, owner) == 1;
    }

    public void requireLease(UUID jobId) {
        if (!renew(jobId)) {
            throw new LeaseLostException(jobId);
        }
    }
}
