package dev.ingestor.operations;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What an operator can do to jobs, all in PostgreSQL and all idempotent in effect: a job sent round again
 * meets item-level idempotency, so items already applied come back REPLAY and no event is written twice.
 * Only a job at rest (finished) is touched; one a worker holds is left alone. Every action is logged with who.
 */
@Component
public class JobActions {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.admin");
    private static final String AT_REST = "('COMPLETED', 'COMPLETED_WITH_ERRORS', 'REJECTED', 'FAILED')";

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;

    public JobActions(JdbcTemplate jdbc, PlatformTransactionManager transactionManager) {
        this.jdbc = jdbc;
        this.transactions = new TransactionTemplate(transactionManager);
    }

    /** Back to RECEIVED: validation reads the file again, then processing applies it (replays stay replays). */
    public boolean revalidate(UUID jobId, String who) {
        boolean done = Boolean.TRUE.equals(transactions.execute(status -> {
            int moved = jdbc.update("UPDATE import_job SET state = 'RECEIVED', total = 0, accepted = 0, updated = 0,"
                    + " replayed = 0, quarantined = 0, records_done = 0, error = NULL, lease_owner = NULL, lease_until = NULL,"
                    + " attempts = 0, takeovers = 0, updated_at = now() WHERE id = ? AND state IN " + AT_REST, jobId);
            if (moved == 1) {
                jdbc.update("DELETE FROM job_record WHERE job_id = ?", jobId);
            }
            return moved == 1;
        }));
        LOG.info("admin action=revalidate job={} by={} result={}", jobId, who, done ? "queued" : "refused (not at rest, or unknown)");
        return done;
    }

    /** Back to PROCESSING from the first record: the quarantine stays as validation left it. */
    public boolean reprocess(UUID jobId, String who) {
        int moved = jdbc.update("UPDATE import_job SET state = 'PROCESSING', records_done = 0, accepted = 0, updated = 0,"
                + " replayed = 0, error = NULL, lease_owner = NULL, lease_until = NULL, attempts = 0, takeovers = 0, updated_at = now()"
                + " WHERE id = ? AND total > 0 AND state IN ('COMPLETED', 'COMPLETED_WITH_ERRORS', 'FAILED')", jobId);
        LOG.info("admin action=reprocess job={} by={} result={}", jobId, who,
                moved == 1 ? "queued" : "refused (not finished, never validated, or unknown)");
        return moved == 1;
    }

    /**
     * Sends a dead letter's job back to the stage that failed: processing resumes from its checkpoint,
     * validation starts again. The dead letter is kept, marked replayed.
     */
    public boolean replayDeadLetter(long deadLetterId, String who) {
        boolean done = Boolean.TRUE.equals(transactions.execute(status -> {
            List<Map<String, Object>> letters = jdbc.queryForList("SELECT job_id, stage FROM dead_letter"
                    + " WHERE id = ? AND replayed_at IS NULL FOR UPDATE", deadLetterId);
            if (letters.isEmpty() || letters.get(0).get("job_id") == null) {
                return false;
            }
            UUID jobId = (UUID) letters.get(0).get("job_id");
            if (!resume(jobId, (String) letters.get(0).get("stage"))) {
                return false;
            }
            jdbc.update("UPDATE dead_letter SET replayed_at = now(), replayed_by = ? WHERE id = ?", who, deadLetterId);
            return true;
        }));
        LOG.info("admin action=replay-dead-letter dead-letter={} by={} result={}", deadLetterId, who,
                done ? "queued" : "refused (already replayed, unknown, or its job is not FAILED)");
        return done;
    }

    /** Every FAILED job of a supplier, each back to the stage that failed. */
    public int retryFailed(String supplier, String who) {
        Integer count = transactions.execute(status -> {
            int n = 0;
            for (Map<String, Object> job : jdbc.queryForList("SELECT j.id, (SELECT d.stage FROM dead_letter d WHERE d.job_id = j.id"
                    + " ORDER BY d.id DESC LIMIT 1) AS stage FROM import_job j WHERE j.supplier = ? AND j.state = 'FAILED'"
                    + " FOR UPDATE OF j", supplier)) {
                UUID jobId = (UUID) job.get("id");
                if (resume(jobId, (String) job.get("stage"))) {
                    jdbc.update("UPDATE dead_letter SET replayed_at = now(), replayed_by = ? WHERE job_id = ? AND replayed_at IS NULL",
                            who, jobId);
                    n++;
                }
            }
            return n;
        });
        LOG.info("admin action=retry-failed supplier={} by={} jobs={}", supplier, who, count);
        return count == null ? 0 : count;
    }

    private boolean resume(UUID jobId, String stage) {
        if ("processing".equals(stage)) {
            return jdbc.update("UPDATE import_job SET state = 'PROCESSING', error = NULL, lease_owner = NULL, lease_until = NULL,"
                    + " attempts = 0, takeovers = 0, updated_at = now() WHERE id = ? AND state = 'FAILED' AND total > 0", jobId) == 1;
        }
        return jdbc.update("UPDATE import_job SET state = 'RECEIVED', total = 0, accepted = 0, updated = 0, replayed = 0,"
                + " quarantined = 0, records_done = 0, error = NULL, lease_owner = NULL, lease_until = NULL, attempts = 0,"
                + " takeovers = 0, updated_at = now() WHERE id = ? AND state = 'FAILED'", jobId) == 1;
    }
}
