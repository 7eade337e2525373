package dev.ingestor.job;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import org.postgresql.PGStatement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.ArgumentPreparedStatementSetter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.PreparedStatementCreator;

/**
 * The job list with a search ({@code q}): a job whose file name holds the search (any case), whose key starts with
 * it, or whose id it is. File names are found in {@code job_file_name} (V22), a partition per month (UTC) of
 * arrival, each with its own trigram index: a page by cursor asks the newest month, then every older month at once
 * ({@link #windows}), stopping when the page is full, so a search whose page the newest month fills costs that month,
 * not the years kept. A page by number (which counts every match) asks every month at once.
 */
final class JobSearch {

    private static final Logger LOG = LoggerFactory.getLogger(JobSearch.class);
    /**
     * The longest a name sample is kept: read again sooner after an ANALYZE, and at the latest then (an ANALYZE the
     * count missed, a server that counts none); one that could not be read is tried again then.
     */
    private static final long SAMPLE_NANOS = 10 * 60 * 1_000_000_000L;
    /** The analyses of a sample that could not be read: none matches it. */
    private static final long UNREAD = -1;
    private static final String JOB_COLUMNS = Arrays.stream(ImportJobStore.COLUMNS.split(","))
            .map(column -> "j." + column.trim()).collect(Collectors.joining(", "));

    private final JdbcTemplate jdbc;
    private volatile NameSample sample;

    /**
     * The file names of the column's statistics, their frequent trigrams, the table's analyses they were read after
     * ({@link #UNREAD}: they could not be read), and when ({@link System#nanoTime()}).
     */
    record NameSample(List<String> names, Set<String> frequent, long analyses, long readAt) {
    }

    /**
     * The arrivals of the oldest and the newest job (both null: no job), and how many times the jobs' statistics
     * were renewed.
     */
    record Held(Instant oldest, Instant newest, long analyses) {
    }

    /** Arrivals from {@code from} (inclusive) to {@code until} (exclusive); a null bound: no bound. */
    record Window(Instant from, Instant until) {
    }

    JobSearch(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    JobPage list(JobQuery query) {
        Held held = held();
        NameSample names = nameSample(held.analyses());
        List<String> parts = SearchTrigrams.indexedParts(query.search(), names.names(), names.frequent());
        if (query.counted() || query.page() > 0) {
            // a page by number: its offset counts from the newest match of all months
            Window all = new Window(query.receivedSince(), query.receivedBefore());
            Long total = query.counted()
                    ? jdbc.query(prepared(count(query, parts, all)), (ResultSet rs) -> rs.next() ? rs.getLong(1) : 0L)
                    : null;
            List<ImportJob> rows = jdbc.query(prepared(page(query, parts, all, query.size() + 1)),
                    ImportJobStore.JOB);
            return ImportJobStore.pageOf(query, rows, total);
        }
        List<ImportJob> rows = new ArrayList<>();
        for (Window window : windows(query, held)) {
            rows.addAll(jdbc.query(prepared(page(query, parts, window, query.size() + 1 - rows.size())),
                    ImportJobStore.JOB));
            if (rows.size() > query.size()) {
                break;
            }
        }
        return ImportJobStore.pageOf(query, rows, null);
    }

    /**
     * The windows {@code query} may find jobs in, newest first, each cut to the query's own window: the month of the
     * newest job of {@code held} (or of the cursor, or of the window's end), then every older month down to that of
     * the oldest job at once. A page the newest month fills costs that month whatever the years kept; one with fewer
     * matches costs one statement more than a single statement over all the months would. Both windows are whole
     * months that exist, so PostgreSQL leaves out every other month and the default partition (which a month being
     * made locks). A job received in a later month than the newest read here sorts before the page, as any job
     * received after a page is read does.
     */
    static List<Window> windows(JobQuery query, Held held) {
        if (held.newest() == null) {
            return List.of();
        }
        Instant newest = held.newest();
        if (query.after() != null) {
            newest = earlier(newest, query.after().at());
        }
        if (query.receivedBefore() != null && !query.receivedBefore().isAfter(newest)) {
            newest = query.receivedBefore().minusNanos(1);
        }
        Instant month = startOf(month(newest));
        Window first = new Window(later(month, query.receivedSince()),
                earlier(startOf(month(newest).plusMonths(1)), query.receivedBefore()));
        Instant oldest = later(startOf(month(held.oldest())), query.receivedSince());
        return oldest.isBefore(month) ? List.of(first, new Window(oldest, month)) : List.of(first);
    }

    private static YearMonth month(Instant at) {
        return YearMonth.from(at.atOffset(ZoneOffset.UTC));
    }

    private static Instant startOf(YearMonth month) {
        return month.atDay(1).atStartOfDay().toInstant(ZoneOffset.UTC);
    }

    /**
     * At most {@code rows} jobs of {@code window} matching {@code query}, newest first: those whose name holds the
     * search (the trigram index asked for {@code parts}, none: for the whole search; {@link SearchTrigrams}), and
     * those whose key starts with it or whose id it is. Each side reads at most {@code rows} (after the offset of a
     * page number) in list order: from the trigram index when its matches are few, in list order from the index of
     * arrivals when they are many (the planner's choice, from the month's own statistics). The two sides find ids
     * and arrivals only, and the jobs of the page are read after: planning a union of whole jobs cost twice as much.
     */
    static ImportJobStore.Statement page(JobQuery query, List<String> parts, Window window, int rows) {
        long offset = (long) query.page() * query.size();
        List<Object> args = new ArrayList<>();
        StringBuilder sql = new StringBuilder("SELECT " + JOB_COLUMNS + " FROM ((SELECT f.job_id AS id, f.received_at"
                + " FROM ");
        sql.append(named(query, parts, window, args));
        sql.append(" ORDER BY f.received_at DESC, f.job_id DESC LIMIT ?) UNION (SELECT j.id, j.received_at FROM ");
        args.add(offset + rows);
        sql.append(keyed(query, window, args));
        sql.append(" ORDER BY j.received_at DESC, j.id DESC LIMIT ?)) found JOIN import_job j ON j.id = found.id");
        args.add(offset + rows);
        sql.append(" ORDER BY found.received_at DESC, found.id DESC LIMIT ? OFFSET ?");
        args.add(rows);
        args.add(offset);
        return new ImportJobStore.Statement(sql.toString(), args);
    }

    /** Every job of {@code window} matching {@code query}. */
    static ImportJobStore.Statement count(JobQuery query, List<String> parts, Window window) {
        List<Object> args = new ArrayList<>();
        String sql = "SELECT count(*) FROM ((SELECT f.job_id FROM " + named(query, parts, window, args)
                + ") UNION (SELECT j.id FROM " + keyed(query, window, args) + ")) found";
        return new ImportJobStore.Statement(sql, args);
    }

    /**
     * The jobs whose file name holds the search: {@code job_file_name} read in the window's months, joined to the
     * jobs only when a supplier or state is asked for. A search whose pieces no sampled name holds ({@code parts}
     * not empty: its matches are few) is read whole through the months' trigram indexes and then sorted, behind a
     * fence ({@code OFFSET 0}) the planner cannot see through: with the page's LIMIT beside it the planner would
     * otherwise read several months' names in list order, each month estimating a few matches in its first
     * thousands of names, and read every name of them when the matches are fewer than the page (220 ms on a
     * twentieth of a year, where the fenced read takes a few). A search some sampled name holds is left to the
     * planner, which reads it in list order when its matches are many.
     */
    private static String named(JobQuery query, List<String> parts, Window window, List<Object> args) {
        StringBuilder sql = new StringBuilder();
        if (parts.isEmpty()) {
            sql.append("job_file_name f").append(joined(query)).append(" WHERE true");
            within("f.received_at", "f.job_id", query, window, sql, args);
            sql.append(" AND f.file_name ILIKE ? ESCAPE '\\'");
        } else {
            sql.append("(SELECT f.job_id, f.received_at FROM job_file_name f WHERE true");
            within("f.received_at", "f.job_id", query, window, sql, args);
            // the index asked for the parts, the whole checked on what it finds: lower() is no index's expression
            for (String part : parts) {
                sql.append(" AND f.file_name ILIKE ? ESCAPE '\\'");
                args.add("%" + ImportJobStore.likeLiteral(part) + "%");
            }
            sql.append(" AND lower(f.file_name) LIKE lower(?) ESCAPE '\\' OFFSET 0) f").append(joined(query))
                    .append(" WHERE true");
        }
        args.add("%" + ImportJobStore.likeLiteral(query.search()) + "%");
        filters(query, sql, args);
        return sql.toString();
    }

    /** The join to the jobs a supplier or state filter needs; none without. */
    private static String joined(JobQuery query) {
        return query.supplier() == null && query.state() == null ? "" : " JOIN import_job j ON j.id = f.job_id";
    }

    /** The jobs whose key starts with the search (the key-prefix index), or whose id it is. */
    private static String keyed(JobQuery query, Window window, List<Object> args) {
        StringBuilder sql = new StringBuilder("import_job j WHERE (j.key LIKE ? ESCAPE '\\'");
        args.add(ImportJobStore.likeLiteral(query.search()) + "%");
        UUID id = ImportJobStore.uuidOrNull(query.search());
        if (id != null) {
            sql.append(" OR j.id = ?");
            args.add(id);
        }
        sql.append(")");
        within("j.received_at", "j.id", query, window, sql, args);
        filters(query, sql, args);
        return sql.toString();
    }

    /** The window and the cursor, on the arrival and id columns given. */
    private static void within(String at, String id, JobQuery query, Window window, StringBuilder sql,
            List<Object> args) {
        if (window.from() != null) {
            sql.append(" AND ").append(at).append(" >= ?");
            args.add(Timestamp.from(window.from()));
        }
        if (window.until() != null) {
            sql.append(" AND ").append(at).append(" < ?");
            args.add(Timestamp.from(window.until()));
        }
        if (query.after() != null) {
            sql.append(" AND (").append(at).append(", ").append(id).append(") < (?, ?)");
            args.add(Timestamp.from(query.after().at()));
            args.add(query.after().uuid());
        }
    }

    private static void filters(JobQuery query, StringBuilder sql, List<Object> args) {
        if (query.supplier() != null) {
            sql.append(" AND j.supplier = ?");
            args.add(query.supplier());
        }
        if (query.state() != null) {
            sql.append(" AND j.state = ?");
            args.add(query.state().name());
        }
    }

    /**
     * {@code statement}, planned for its own values each time it runs: the driver prepares a statement on the server
     * after a few runs on a connection, and PostgreSQL may then plan it once for any value, a plan that can neither
     * use the key-prefix index (a LIKE pattern must be known to become an index range) nor leave out the months
     * outside the window (their bounds must be known), so it would read every month's names.
     */
    private static PreparedStatementCreator prepared(ImportJobStore.Statement statement) {
        return connection -> {
            PreparedStatement prepared = connection.prepareStatement(statement.sql());
            prepared.unwrap(PGStatement.class).setPrepareThreshold(0);
            new ArgumentPreparedStatementSetter(statement.args().toArray()).setValues(prepared);
            return prepared;
        };
    }

    /**
     * The oldest and newest arrivals and the count of the jobs' analyses (ANALYZE's, by hand or by autovacuum), in
     * one statement: the arrivals bound the search's windows, the count says when the name sample is stale.
     */
    Held held() {
        return jdbc.query("""
                SELECT min(received_at) AS oldest, max(received_at) AS newest,
                       pg_stat_get_analyze_count('import_job'::regclass)
                       + pg_stat_get_autoanalyze_count('import_job'::regclass) AS analyses
                FROM import_job""", (ResultSet rs) -> {
            rs.next();
            return new Held(ImportJobStore.instant(rs, "oldest"), ImportJobStore.instant(rs, "newest"),
                    rs.getLong("analyses"));
        });
    }

    NameSample nameSample() {
        return nameSample(held().analyses());
    }

    /**
     * The file names PostgreSQL's statistics of the column hold (its histogram and most common values, a sample
     * ANALYZE took) and the trigrams frequent in them ({@link SearchTrigrams#frequentIn}), read again whenever the
     * table has been analysed since ({@code analyses} changed), and at least every ten minutes: a sample read while
     * the table was small would otherwise call a search of many names rare, or one of few frequent (and, left to the
     * planner, read every name of the months in list order). None while the table has no statistics, or they cannot
     * be read (a warning says why; tried again in ten minutes).
     */
    NameSample nameSample(long analyses) {
        NameSample current = sample;
        if (current != null && System.nanoTime() - current.readAt() < SAMPLE_NANOS
                && (current.analyses() == analyses || current.analyses() == UNREAD)) {
            return current;
        }
        List<String> names;
        long read = analyses;
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
            read = UNREAD;
        }
        NameSample fresh = new NameSample(List.copyOf(names), SearchTrigrams.frequentIn(names), read,
                System.nanoTime());
        sample = fresh;
        return fresh;
    }

    private static Instant earlier(Instant a, Instant b) {
        return b == null || a.isBefore(b) ? a : b;
    }

    private static Instant later(Instant a, Instant b) {
        return b == null || a.isAfter(b) ? a : b;
    }
}
