package dev.ingestor.job;

import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.outbox.DeadLetterWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The dead letters as operators read them (table dead_letter), and the FAILED jobs they explain. A dead letter
 * is written with its event by the dead-letter channel ({@link DeadLetters}); this class reads them and marks them
 * replayed. Rows keep the column names the admin API shows (jobId, createdAt, ...).
 */
@Component("deadLetterStore")
public class DeadLetterStore {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterStore.class);

    private static final String LETTER = "SELECT d.id, d.job_id AS \"jobId\", j.supplier, d.stage, d.exception, d.message,"
            + " d.attempts, d.created_at AS \"createdAt\", d.replayed_at AS \"replayedAt\", d.replayed_by AS \"replayedBy\""
            + " FROM dead_letter d LEFT JOIN import_job j ON j.id = d.job_id ";

    private final JdbcTemplate jdbc;

    public DeadLetterStore(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** A dead letter not replayed yet, locked until the caller's transaction ends. */
    public record Waiting(long id, UUID jobId, String stage) {
    }

    /**
     * The dead letter {@code id} if it is not replayed yet and belongs to a job, locked for the caller's transaction.
     */
    public java.util.Optional<Waiting> lockWaiting(long id) {
        return jdbc.query("SELECT id, job_id, stage FROM dead_letter WHERE id = ? AND replayed_at IS NULL"
                + " AND job_id IS NOT NULL FOR UPDATE",
                (rs, n) -> new Waiting(rs.getLong(1), rs.getObject(2, UUID.class), rs.getString(3)), id).stream()
                .findFirst();
    }

    /**
     * Marks the dead letter {@code id} of an event Kafka refused ({@link DeadLetterWriter#RELAY_STAGE}) seen, by
     * whom, if it is one and waits: nothing is sent round for it (its job's effects stand). False for any other.
     */
    public boolean acknowledgeRefusedEvent(long id, String who) {
        return jdbc.update("UPDATE dead_letter SET replayed_at = now(), replayed_by = ? WHERE id = ?"
                + " AND replayed_at IS NULL AND stage = ?", who, id, DeadLetterWriter.RELAY_STAGE) == 1;
    }

    /** Marks every waiting letter of an event of the job Kafka refused seen, by whom; returns how many. */
    public int acknowledgeRefusedEventsOfJob(UUID jobId, String who) {
        return jdbc.update("UPDATE dead_letter SET replayed_at = now(), replayed_by = ? WHERE job_id = ?"
                + " AND replayed_at IS NULL AND stage = ?", who, jobId, DeadLetterWriter.RELAY_STAGE);
    }

    /**
     * Marks every waiting dead letter of a job's failures as replayed, by whom: the job has been sent round again. The
     * letters of events Kafka refused are not its failures, and wait to be acknowledged.
     */
    public void markReplayedOfJob(UUID jobId, String who) {
        jdbc.update("UPDATE dead_letter SET replayed_at = now(), replayed_by = ? WHERE job_id = ?"
                + " AND replayed_at IS NULL AND stage <> ?", who, jobId, DeadLetterWriter.RELAY_STAGE);
    }

    /**
     * The stage of the failure of the job {@code j}, as SQL: its newest dead letter's, the letters of events Kafka
     * refused passed over (they may come after the failure, and say nothing of it); NULL when it has no other.
     */
    static final String FAILED_STAGE_OF_J = "(SELECT d.stage FROM dead_letter d WHERE d.job_id = j.id AND d.stage <> '"
            + DeadLetterWriter.RELAY_STAGE + "' ORDER BY d.id DESC LIMIT 1)";

    /** The stage of the job's failure ({@link #FAILED_STAGE_OF_J}); null when it has none. */
    public String failedStage(UUID jobId) {
        List<String> stage = jdbc.queryForList("SELECT " + FAILED_STAGE_OF_J + " FROM import_job j WHERE j.id = ?",
                String.class, jobId);
        return stage.isEmpty() ? null : stage.get(0);
    }

    /**
     * Dead letters not replayed yet: failures an operator still has to look at. Read from the count the database
     * keeps (tables dead_letter_count and dead_letter_count_delta, migration V21, kept by triggers on dead_letter as
     * {@link JobCounts} are): one row and the deltas since the last {@link #fold}, however many letters wait.
     */
    public long waiting() {
        Long kept = jdbc.queryForObject("SELECT (SELECT waiting FROM dead_letter_count)"
                + " + (SELECT coalesce(sum(waiting), 0) FROM dead_letter_count_delta)", Long.class);
        if (kept != null) {
            return kept;
        }
        // the count's row is gone (deleted by hand): count the letters, and say how to make it again
        LOG.warn("the dead letters waiting are counted from the table: dead_letter_count has lost its row;"
                + " SELECT dead_letter_count_recount() makes it again");
        return count("SELECT count(*) FROM dead_letter WHERE replayed_at IS NULL");
    }

    /**
     * Moves the deltas into the count (route dead-letter-count, every few seconds), so a read sums few rows; returns
     * how many deltas it moved, 0 when another instance was folding at that moment.
     */
    public long fold() {
        Long taken = jdbc.queryForObject("SELECT dead_letter_count_fold()", Long.class);
        return taken == null ? 0 : taken;
    }

    /** Every dead letter, newest first. */
    public RowPage page(PageRequest request) {
        List<Object> args = new ArrayList<>();
        String where = "";
        if (request.after() != null) {
            where = "WHERE d.id < ? ";
            args.add(request.after().numericId());
        }
        List<Map<String, Object>> rows = jdbc.queryForList(LETTER + where + "ORDER BY d.id DESC LIMIT ? OFFSET ?",
                request.limitAndOffset(args));
        Long total = request.numbered() ? count("SELECT count(*) FROM dead_letter") : null;
        return RowPage.of(rows, request, total, row -> PageCursor.ofId(((Number) row.get("id")).longValue()));
    }

    /** The latest dead letters of a job, oldest first, and whether it has earlier ones besides. */
    public record JobLetters(List<Map<String, Object>> letters, boolean more) {
    }

    /**
     * The latest {@code most} dead letters of one job, oldest first (through {@code dead_letter_job_id}, V28): a job
     * may have one for every event Kafka refused, a million for a file of a million records. When those are all
     * refused events' letters, the letter of the job's failure comes first besides (through {@code
     * dead_letter_job_failure}, V30).
     */
    public JobLetters ofJob(UUID jobId, int most) {
        List<Map<String, Object>> latest = new ArrayList<>(
                jdbc.queryForList(LETTER + "WHERE d.job_id = ? ORDER BY d.id DESC LIMIT ?", jobId, most + 1));
        boolean more = latest.size() > most;
        if (more) {
            latest.remove(most);
            // the letter of the job's failure, the one a replay resumes it by, even behind refused events' letters
            if (latest.stream().allMatch(letter -> DeadLetterWriter.RELAY_STAGE.equals(letter.get("stage")))) {
                latest.addAll(jdbc.queryForList(LETTER + "WHERE d.job_id = ? AND d.stage <> '"
                        + DeadLetterWriter.RELAY_STAGE + "' ORDER BY d.id DESC LIMIT 1", jobId));
            }
        }
        java.util.Collections.reverse(latest);
        return new JobLetters(latest, more);
    }

    /**
     * FAILED jobs, most recently failed first, each with the stage, exception, message and attempts of its last
     * dead letter of a stage (a refused event's letter, which may come after the failure, is not the job's failure,
     * as {@link #FAILED_STAGE_OF_J} says); {@code supplier} null for all. Read through the partial indexes of FAILED
     * jobs by time of failure.
     */
    public RowPage failedJobs(String supplier, PageRequest request) {
        String where = " WHERE j.state = 'FAILED'" + (supplier == null ? "" : " AND j.supplier = ?");
        List<Object> args = new ArrayList<>();
        if (supplier != null) {
            args.add(supplier);
        }
        Long total = request.numbered() ? count("SELECT count(*) FROM import_job j" + where, args.toArray()) : null;
        if (request.after() != null) {
            where += " AND (j.updated_at, j.id) < (?, ?)";
            args.add(Timestamp.from(request.after().at()));
            args.add(request.after().uuid());
        }
        List<Map<String, Object>> rows = jdbc.queryForList(
                """
                        SELECT j.id, j.supplier, j.file_name AS "fileName", j.key, j.error, j.updated_at AS "failedAt",
                               d.id AS "deadLetterId", d.stage, d.exception, d.message, d.attempts
                        FROM import_job j
                        LEFT JOIN LATERAL (SELECT * FROM dead_letter x WHERE x.job_id = j.id AND x.stage <> '%s'
                                           ORDER BY x.id DESC LIMIT 1) d ON true
                        """.formatted(DeadLetterWriter.RELAY_STAGE)
                        + where + " ORDER BY j.updated_at DESC, j.id DESC LIMIT ? OFFSET ?",
                request.limitAndOffset(args));
        return RowPage.of(rows, request, total,
                row -> new PageCursor(((Timestamp) row.get("failedAt")).toInstant(), row.get("id").toString()));
    }

    private long count(String sql, Object... args) {
        Long count = jdbc.queryForObject(sql, Long.class, args);
        return count == null ? 0 : count;
    }
}
