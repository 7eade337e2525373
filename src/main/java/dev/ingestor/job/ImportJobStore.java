package dev.ingestor.job;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.impl.TimeBasedEpochGenerator;
import dev.ingestor.config.RecordFormat;
import dev.ingestor.wakeup.WorkChannels;
import dev.ingestor.wakeup.WorkNotices;
import org.springframework.jdbc.core.ArgumentPreparedStatementSetter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.PreparedStatementCreator;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.stereotype.Component;

/**
 * Import jobs in PostgreSQL. Intake opens a job and counts arrivals on it inside the transaction that inserted the
 * content key, so a key is written with its job; retention deletes them together.
 */
@Component
public class ImportJobStore {

    public static final String COLUMNS = "id, supplier, state, key, file_name, size, source, received_at, updated_at,"
            + " duplicate_count, last_seen_at, total, accepted, updated, replayed, quarantined, error, records_done,"
            + " request_key, format, submitted_by, lease_owner, rerun";

    /** Time-ordered (v7) ids: newest-first listing and index locality, and nothing to guess from them. */
    private static final TimeBasedEpochGenerator IDS = Generators.timeBasedEpochGenerator();

    private final JdbcTemplate jdbc;
    private final WorkNotices notices;
    private final JobSearch search;

    public ImportJobStore(JdbcTemplate jdbc, WorkNotices notices) {
        this.jdbc = jdbc;
        this.notices = notices;
        this.search = new JobSearch(jdbc);
    }

    /**
     * A new job for content intake took in: RECEIVED, or REJECTED at once when the file is empty (0 bytes).
     */
    public ImportJob open(ContentKey key, long size, String fileName, String source, String submittedBy) {
        boolean empty = size == 0;
        JobState state = empty ? JobState.REJECTED : JobState.RECEIVED;
        String error = empty ? "the file is empty (0 bytes)" : null;
        ImportJob job = jdbc.queryForObject(
                "INSERT INTO import_job (id, supplier, state, key, file_name, size, source, error, submitted_by)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING " + COLUMNS,
                JOB, newId(), key.supplier(), state.name(), key.toString(), fileName, size, source, error,
                submittedBy);
        if (!empty) {
            // validation is told after the commit, not by a NOTIFY in this transaction (WorkNotices says why)
            notices.afterCommit(WorkChannels.VALIDATION);
        }
        return job;
    }

    public static UUID newId() {
        return IDS.generate();
    }

    /**
     * A job for an HTTP item batch, keyed by its request: {@code state} RECEIVED for a bulk batch, which the
     * stages then take like a file, or the end state of a batch processed while the caller waited.
     */
    public ImportJob createForRequest(UUID id, ContentKey key, long size, String fileName, String requestKey,
            String submittedBy, JobState state, RecordCounts counts) {
        ImportJob job = jdbc.queryForObject(
                "INSERT INTO import_job (id, supplier, state, key, file_name, size, source, request_key, format,"
                        + " submitted_by, total, accepted, updated, replayed, quarantined, records_done)"
                        + " VALUES (?, ?, ?, ?, ?, ?, 'http-items', ?, 'JSON', ?, ?, ?, ?, ?, ?, ?) RETURNING "
                        + COLUMNS,
                JOB, id, key.supplier(), state.name(), key.toString(), fileName, size, requestKey,
                submittedBy,
                counts.total(), counts.accepted(), counts.updated(), counts.replayed(), counts.quarantined(),
                state == JobState.RECEIVED ? 0 : counts.total());
        if (state == JobState.RECEIVED) {
            notices.afterCommit(WorkChannels.VALIDATION);
        }
        return job;
    }

    /**
     * One more arrival counted on the file job of {@code key} (who submitted the job stays the first submitter);
     * empty when that job is gone.
     */
    public Optional<ImportJob> countArrival(ContentKey key) {
        return jdbc.query(
                "UPDATE import_job SET duplicate_count = duplicate_count + 1, last_seen_at = clock_timestamp()"
                        + " WHERE key = ? AND request_key IS NULL RETURNING " + COLUMNS,
                JOB, key.toString())
                .stream().findFirst();
    }

    public Optional<ImportJob> find(UUID id) {
        return jdbc.query("SELECT " + COLUMNS + " FROM import_job WHERE id = ?", JOB, id).stream().findFirst();
    }

    public JobPage list(JobQuery query) {
        if (query.search() != null) {
            return search.list(query);
        }
        Statement filtered = filtered(query);
        Long total = query.counted() ? count(query, filtered) : null;
        Statement page = page(query);
        return pageOf(query, jdbc.query(prepared(query, page), JOB), total);
    }

    /** The page of {@code query} from {@code rows}: the page's rows, and one more when more follow. */
    static JobPage pageOf(JobQuery query, List<ImportJob> rows, Long total) {
        boolean more = rows.size() > query.size();
        List<ImportJob> items = more ? rows.subList(0, query.size()) : rows;
        String next = more ? cursorOf(items.get(items.size() - 1)).text() : null;
        return new JobPage(items, query.counted() ? query.page() : null, query.size(), total, more, next);
    }

    private Long count(JobQuery query, Statement filtered) {
        Statement count = new Statement("SELECT count(*) FROM import_job" + filtered.sql(), filtered.args());
        return jdbc.query(prepared(query, count), (ResultSet rs) -> rs.next() ? rs.getLong(1) : 0L);
    }

    /** {@code statement} of {@code query}'s list: its filters are index ranges for any value, so it may be prepared. */
    private static PreparedStatementCreator prepared(JobQuery query, Statement statement) {
        return connection -> {
            PreparedStatement prepared = connection.prepareStatement(statement.sql());
            new ArgumentPreparedStatementSetter(statement.args().toArray()).setValues(prepared);
            return prepared;
        };
    }

    /** An SQL text and its arguments in order. */
    record Statement(String sql, List<Object> args) {
    }

    /**
     * The page of {@code query} (without a search: {@link JobSearch}): one row more than the page, so the caller
     * knows whether more follow. Each filter the lists offer has an index that ends in (received_at DESC, id DESC)
     * (V17), so the page is read from where the cursor is.
     */
    static Statement page(JobQuery query) {
        Statement filtered = filtered(query);
        StringBuilder sql = new StringBuilder("SELECT " + COLUMNS + " FROM import_job" + filtered.sql());
        List<Object> args = new ArrayList<>(filtered.args());
        if (query.after() != null) {
            // a row comparison: an index condition on the index's trailing (received_at, id)
            sql.append(" AND (received_at, id) < (?, ?)");
            args.add(Timestamp.from(query.after().at()));
            args.add(query.after().uuid());
        }
        sql.append(" ORDER BY received_at DESC, id DESC LIMIT ? OFFSET ?");
        args.add(query.size() + 1);
        args.add((long) query.page() * query.size());
        return new Statement(sql.toString(), args);
    }

    private static Statement filtered(JobQuery query) {
        StringBuilder where = new StringBuilder(" WHERE true");
        List<Object> args = new ArrayList<>();
        if (query.supplier() != null) {
            where.append(" AND supplier = ?");
            args.add(query.supplier());
        }
        if (query.state() != null) {
            where.append(" AND state = ?");
            args.add(query.state().name());
        }
        if (query.receivedSince() != null) {
            where.append(" AND received_at >= ?");
            args.add(Timestamp.from(query.receivedSince()));
        }
        if (query.receivedBefore() != null) {
            where.append(" AND received_at < ?");
            args.add(Timestamp.from(query.receivedBefore()));
        }
        return new Statement(where.toString(), args);
    }

    /** Where the list goes on after {@code job}. */
    public static PageCursor cursorOf(ImportJob job) {
        return new PageCursor(job.receivedAt(), job.id().toString());
    }

    /** {@code text} matched as itself in LIKE: its wildcards {@code %} and {@code _} (and the escape) escaped. */
    static String likeLiteral(String text) {
        return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
    }

    static UUID uuidOrNull(String text) {
        // UUID.fromString accepts short forms such as 1-2-3-4-5; only the canonical 36 characters are an id
        if (text.length() != 36) {
            return null;
        }
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** One minute of {@link #perMinute}: jobs received, jobs finished by end state, and their records by outcome. */
    public record MinuteOfJobs(Instant minute, long received, long completed, long completedWithErrors, long rejected,
            long failed, long accepted, long updated, long replayed, long quarantined) {
    }

    /**
     * Every minute from {@code from} to {@code to} (both truncated to the minute, inclusive), empty minutes as
     * zeros: the jobs received that minute, and the jobs that reached an end state that minute with their records
     * by outcome. A job's records are attributed to the minute its job finished (its last change of state), not
     * to when each record was applied: the job row holds the counts, and a time per record would cost a write
     * per record. A job sent round again counts again when it finishes again.
     */
    public List<MinuteOfJobs> perMinute(Instant from, Instant to) {
        // the window's bounds as values, not as subqueries of the minutes: the planner then knows how few rows they
        // hold and reads them through import_job_received and import_job_finished, whatever the table's size
        Timestamp first = Timestamp.from(from.truncatedTo(java.time.temporal.ChronoUnit.MINUTES));
        Timestamp end = Timestamp.from(to.truncatedTo(java.time.temporal.ChronoUnit.MINUTES).plusSeconds(60));
        return jdbc.query("""
                WITH minutes AS (
                  SELECT generate_series(date_trunc('minute', ?::timestamptz), date_trunc('minute', ?::timestamptz),
                                         interval '1 minute') AS minute),
                received AS (
                  SELECT date_trunc('minute', received_at) AS minute, count(*) AS jobs FROM import_job
                  WHERE received_at >= ? AND received_at < ?
                  GROUP BY 1),
                finished AS (
                  SELECT date_trunc('minute', updated_at) AS minute,
                         count(*) FILTER (WHERE state = 'COMPLETED') AS completed,
                         count(*) FILTER (WHERE state = 'COMPLETED_WITH_ERRORS') AS completed_with_errors,
                         count(*) FILTER (WHERE state = 'REJECTED') AS rejected,
                         count(*) FILTER (WHERE state = 'FAILED') AS failed,
                         sum(accepted) AS accepted, sum(updated) AS updated, sum(replayed) AS replayed,
                         sum(quarantined) AS quarantined
                  FROM import_job
                  WHERE state IN ('COMPLETED', 'COMPLETED_WITH_ERRORS', 'REJECTED', 'FAILED')
                    AND updated_at >= ? AND updated_at < ?
                  GROUP BY 1)
                SELECT m.minute, coalesce(r.jobs, 0) AS received, coalesce(f.completed, 0) AS completed,
                       coalesce(f.completed_with_errors, 0) AS completed_with_errors, coalesce(f.rejected,
                           0) AS rejected,
                       coalesce(f.failed, 0) AS failed, coalesce(f.accepted, 0) AS accepted,
                       coalesce(f.updated, 0) AS updated, coalesce(f.replayed, 0) AS replayed,
                       coalesce(f.quarantined, 0) AS quarantined
                FROM minutes m LEFT JOIN received r ON r.minute = m.minute LEFT JOIN finished f ON f.minute = m.minute
                ORDER BY m.minute""",
                (rs, row) -> new MinuteOfJobs(rs.getTimestamp("minute").toInstant(), rs.getLong("received"),
                        rs.getLong("completed"), rs.getLong("completed_with_errors"), rs.getLong("rejected"),
                        rs.getLong("failed"), rs.getLong("accepted"), rs.getLong("updated"), rs.getLong("replayed"),
                        rs.getLong("quarantined")),
                Timestamp.from(from), Timestamp.from(to), first, end, first, end);
    }

    public static final RowMapper<ImportJob> JOB = ImportJobStore::map;

    private static ImportJob map(ResultSet rs, int row) throws SQLException {
        return new ImportJob(
                rs.getObject("id", UUID.class),
                rs.getString("supplier"),
                JobState.valueOf(rs.getString("state")),
                ContentKey.parse(rs.getString("key")),
                rs.getString("file_name"),
                rs.getLong("size"),
                rs.getString("source"),
                instant(rs, "received_at"),
                instant(rs, "updated_at"),
                rs.getInt("duplicate_count"),
                instant(rs, "last_seen_at"),
                new RecordCounts(rs.getLong("total"), rs.getLong("accepted"), rs.getLong("updated"),
                        rs.getLong("replayed"), rs.getLong("quarantined")),
                rs.getString("error"),
                rs.getLong("records_done"),
                rs.getString("request_key"),
                rs.getString("format") == null ? null : RecordFormat.valueOf(rs.getString("format")),
                rs.getString("submitted_by"),
                rs.getString("lease_owner"),
                rs.getBoolean("rerun"));
    }

    /**
     * A timestamptz column as an instant. Read as an OffsetDateTime: getTimestamp makes a new Calendar of the JVM's
     * zone for every value, which would be the larger part of mapping a job (a claim maps one, a hand-over another).
     */
    static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}
