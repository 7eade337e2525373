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
import java.util.Set;
import java.util.UUID;

import com.fasterxml.uuid.Generators;
import com.fasterxml.uuid.impl.TimeBasedEpochGenerator;
import dev.ingestor.config.RecordFormat;
import dev.ingestor.wakeup.WorkChannels;
import dev.ingestor.wakeup.WorkNotices;
import org.postgresql.PGStatement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
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
            + " request_key, format, submitted_by";

    /** Time-ordered (v7) ids: newest-first listing and index locality, and nothing to guess from them. */
    private static final TimeBasedEpochGenerator IDS = Generators.timeBasedEpochGenerator();

    private static final Logger LOG = LoggerFactory.getLogger(ImportJobStore.class);
    /** How long the frequent trigrams of the file names are kept before they are read again (ANALYZE renews them). */
    private static final long SAMPLE_NANOS = 10 * 60 * 1_000_000_000L;

    private final JdbcTemplate jdbc;
    private final WorkNotices notices;
    private volatile NameSample sample;

    /**
     * The file names of the column's statistics, their frequent trigrams, and when they were read
     * ({@link System#nanoTime()}).
     */
    record NameSample(List<String> names, Set<String> frequent, long readAt) {
    }

    public ImportJobStore(JdbcTemplate jdbc, WorkNotices notices) {
        this.jdbc = jdbc;
        this.notices = notices;
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
                JOB, IDS.generate(), key.supplier(), state.name(), key.toString(), fileName, size, source, error,
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
        List<String> indexed = List.of();
        if (query.search() != null) {
            NameSample names = nameSample();
            indexed = SearchTrigrams.indexedParts(query.search(), names.names(), names.frequent());
        }
        Statement filtered = filtered(query, indexed);
        Long total = query.counted() ? count(query, filtered) : null;
        Statement page = page(query, indexed);
        List<ImportJob> rows = jdbc.query(prepared(query, page), JOB);
        boolean more = rows.size() > query.size();
        List<ImportJob> items = more ? rows.subList(0, query.size()) : rows;
        String next = more ? cursorOf(items.get(items.size() - 1)).text() : null;
        return new JobPage(items, query.counted() ? query.page() : null, query.size(), total, more, next);
    }

    private Long count(JobQuery query, Statement filtered) {
        Statement count = new Statement("SELECT count(*) FROM import_job" + filtered.sql(), filtered.args());
        return jdbc.query(prepared(query, count), (ResultSet rs) -> rs.next() ? rs.getLong(1) : 0L);
    }

    /**
     * {@code statement} of {@code query}'s list. A search is planned for its own values each time it runs: the driver
     * prepares a statement on the server after a few runs on a connection, and PostgreSQL may then plan it once for
     * any value, a plan that cannot use the key-prefix index (a LIKE pattern must be known to become an index range),
     * so it reads jobs in list order past every one that does not match, a year of them for a rare part, instead of
     * the trigram index's matches. The other filters are index ranges for any value, so their lists may be prepared.
     */
    private static PreparedStatementCreator prepared(JobQuery query, Statement statement) {
        return connection -> {
            PreparedStatement prepared = connection.prepareStatement(statement.sql());
            if (query.search() != null) {
                prepared.unwrap(PGStatement.class).setPrepareThreshold(0);
            }
            new ArgumentPreparedStatementSetter(statement.args().toArray()).setValues(prepared);
            return prepared;
        };
    }

    /** An SQL text and its arguments in order. */
    record Statement(String sql, List<Object> args) {
    }

    /**
     * The page of {@code query}: one row more than the page, so the caller knows whether more follow. Each filter
     * the lists offer has an index that ends in (received_at DESC, id DESC) (V17), so the page is read from where
     * the cursor is; a part of a file name ({@code search}) is found through the trigram index of V20 when its
     * matches are few, checked on the rows read in list order when they are many (the planner's choice).
     */
    static Statement page(JobQuery query) {
        return page(query, List.of());
    }

    /**
     * {@link #page(JobQuery)}, the index asked for the parts {@code indexed} of the search ({@link SearchTrigrams});
     * none: for the whole search.
     */
    static Statement page(JobQuery query, List<String> indexed) {
        Statement filtered = filtered(query, indexed);
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

    private static Statement filtered(JobQuery query, List<String> indexed) {
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
        if (query.search() != null) {
            if (indexed.isEmpty()) {
                where.append(" AND (file_name ILIKE ? ESCAPE '\\'");
            } else {
                // the index asked for the parts, the whole checked on what it finds: lower() is no index's expression
                where.append(" AND ((");
                for (String part : indexed) {
                    where.append("file_name ILIKE ? ESCAPE '\\' AND ");
                    args.add("%" + likeLiteral(part) + "%");
                }
                where.append("lower(file_name) LIKE lower(?) ESCAPE '\\')");
            }
            where.append(" OR key LIKE ? ESCAPE '\\'");
            args.add("%" + likeLiteral(query.search()) + "%");
            args.add(likeLiteral(query.search()) + "%");
            UUID id = uuidOrNull(query.search());
            if (id != null) {
                where.append(" OR id = ?");
                args.add(id);
            }
            where.append(")");
        }
        return new Statement(where.toString(), args);
    }

    /**
     * The file names PostgreSQL's statistics of the column hold (its histogram and most common values, a sample
     * ANALYZE took) and the trigrams frequent in them ({@link SearchTrigrams#frequentIn}), read at most every ten
     * minutes; none while the table has no statistics, or they cannot be read (a warning says why).
     */
    NameSample nameSample() {
        NameSample current = sample;
        if (current != null && System.nanoTime() - current.readAt() < SAMPLE_NANOS) {
            return current;
        }
        List<String> names;
        try {
            names = jdbc.queryForList("""
                    SELECT unnest(coalesce(s.histogram_bounds::text::text[], '{}')
                                  || coalesce(s.most_common_vals::text::text[], '{}'))
                    FROM pg_stats s JOIN pg_namespace n ON n.nspname = s.schemaname
                    JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = s.tablename
                    WHERE c.oid = 'import_job'::regclass AND s.attname = 'file_name' AND NOT s.inherited""",
                    String.class);
        } catch (DataAccessException e) {
            LOG.warn("cannot read the statistics of import_job.file_name ({}); searches by part of a file name ask"
                    + " the trigram index for the whole text until the next try in ten minutes", e.getMessage());
            names = List.of();
        }
        NameSample read = new NameSample(List.copyOf(names), SearchTrigrams.frequentIn(names), System.nanoTime());
        sample = read;
        return read;
    }

    /** Where the list goes on after {@code job}. */
    public static PageCursor cursorOf(ImportJob job) {
        return new PageCursor(job.receivedAt(), job.id().toString());
    }

    /** {@code text} matched as itself in LIKE: its wildcards {@code %} and {@code _} (and the escape) escaped. */
    static String likeLiteral(String text) {
        return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
    }

    private static UUID uuidOrNull(String text) {
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
                rs.getString("submitted_by"));
    }

    /**
     * A timestamptz column as an instant. Read as an OffsetDateTime: getTimestamp makes a new Calendar of the JVM's
     * zone for every value, which would be the larger part of mapping a job (a claim maps one, a hand-over another).
     */
    private static Instant instant(ResultSet rs, String column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}
