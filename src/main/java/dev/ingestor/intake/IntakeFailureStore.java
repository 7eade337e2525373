package dev.ingestor.intake;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ingestor.job.PageCursor;
import dev.ingestor.job.PageRequest;
import dev.ingestor.job.RowPage;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Arrivals that never became a job (table intake_failure): files moved to {@code .rejected/} or {@code .failed/}
 * by a file source or the stray sweeper, and HTTP pushes refused by intake. Without a row such a file is
 * visible only in a log line and a folder nobody looks at. Rows keep the column names the admin API shows. A row
 * of a kept file is one arrival; refusals that kept nothing are counted per kind and window ({@link #record}).
 */
@Component
public class IntakeFailureStore {

    /** Longest reason kept: a database error's message may carry a whole statement. */
    static final int MAX_REASON = 2000;

    private static final String ROW = "SELECT id, supplier, source, file_name AS \"fileName\", size, outcome, reason,"
            + " occurred_at AS \"occurredAt\", occurrences AS \"count\","
            + " coalesce(last_occurred_at, occurred_at) AS \"lastOccurredAt\", location, retried_at AS \"retriedAt\","
            + " retried_by AS \"retriedBy\" FROM intake_failure ";

    /** What is known about one failed or rejected arrival. {@code size} and {@code location} may be null. */
    public record Arrival(String supplier, String source, String fileName, Long size, String outcome, String reason,
            String location) {
    }

    /** A row as the retry needs it. */
    public record Failure(long id, String supplier, String source, String fileName, String outcome, String location,
            boolean retried) {
    }

    private final JdbcTemplate jdbc;
    private final double windowSeconds;

    public IntakeFailureStore(JdbcTemplate jdbc, IntakeSettings intake) {
        this.jdbc = jdbc;
        this.windowSeconds = intake.getFailureCoalesceWindow().toMillis() / 1000.0;
    }

    /**
     * Records one arrival; returns its row's id. An arrival that kept no file is counted into the row of its kind
     * (supplier, source, outcome, reason) of the current {@code failure-coalesce-window}, when there is one: a
     * client looping on a refused push makes one row per window, not one per attempt. Two instances counting at
     * once meet in the unique index (ON CONFLICT), so no arrival is lost and no second row is made.
     */
    public long record(Arrival arrival) {
        Object[] values = {storable(orUnknown(arrival.supplier())), orUnknown(arrival.source()),
                storable(orUnknown(arrival.fileName())), arrival.size(), arrival.outcome(),
                storable(shortened(arrival.reason())), storable(arrival.location())};
        if (arrival.location() != null || windowSeconds <= 0) {
            return jdbc.queryForObject("INSERT INTO intake_failure (supplier, source, file_name, size, outcome, reason,"
                    + " location) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id", Long.class, values);
        }
        Object[] withWindow = java.util.Arrays.copyOf(values, values.length + 1);
        withWindow[values.length] = windowSeconds;
        return jdbc.queryForObject("INSERT INTO intake_failure (supplier, source, file_name, size, outcome, reason,"
                + " location, window_start) VALUES (?, ?, ?, ?, ?, ?, ?,"
                + " date_bin(make_interval(secs => ?), now(), timestamptz '2000-01-01 00:00:00+00'))"
                + " ON CONFLICT (supplier, source, outcome, md5(reason), window_start) WHERE window_start IS NOT NULL"
                + " DO UPDATE SET occurrences = intake_failure.occurrences + 1, last_occurred_at = now()"
                + " RETURNING id", Long.class, withWindow);
    }

    /** Newest first; {@code supplier} and {@code source} null for all. */
    public RowPage page(String supplier, String source, PageRequest request) {
        List<String> conditions = new ArrayList<>();
        List<Object> args = new ArrayList<>();
        if (supplier != null) {
            conditions.add("supplier = ?");
            args.add(supplier);
        }
        if (source != null) {
            conditions.add("source = ?");
            args.add(source);
        }
        Long total = null;
        if (request.numbered()) {
            String where = conditions.isEmpty() ? "" : "WHERE " + String.join(" AND ", conditions) + " ";
            total = jdbc.queryForObject("SELECT count(*) FROM intake_failure " + where, Long.class, args.toArray());
        }
        if (request.after() != null) {
            conditions.add("(occurred_at, id) < (?, ?)");
            args.add(java.sql.Timestamp.from(request.after().at()));
            args.add(request.after().numericId());
        }
        String where = conditions.isEmpty() ? "" : "WHERE " + String.join(" AND ", conditions) + " ";
        List<Map<String, Object>> rows = jdbc.queryForList(
                ROW + where + "ORDER BY occurred_at DESC, id DESC LIMIT ? OFFSET ?", request.limitAndOffset(args));
        return RowPage.of(rows, request, total,
                row -> new PageCursor(((java.sql.Timestamp) row.get("occurredAt")).toInstant(),
                        row.get("id").toString()));
    }

    /** The row {@code id}, locked until the caller's transaction ends. */
    public Optional<Failure> lock(long id) {
        return jdbc.query("SELECT id, supplier, source, file_name, outcome, location, retried_at IS NOT NULL"
                + " FROM intake_failure WHERE id = ? FOR UPDATE",
                (rs, n) -> new Failure(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4),
                        rs.getString(5),
                        rs.getString(6), rs.getBoolean(7)),
                id).stream().findFirst();
    }

    /** The file went back to where it is taken from: it is no longer where the row says. */
    public void markRetried(long id, String who, String location) {
        jdbc.update("UPDATE intake_failure SET retried_at = now(), retried_by = ?, location = ? WHERE id = ?", who,
                location, id);
    }

    private static String orUnknown(String value) {
        return value == null || value.isBlank() ? "unknown" : value;
    }

    /** PostgreSQL text holds any character but NUL, which a refused HTTP file name may carry. */
    private static String storable(String value) {
        return value == null ? null : value.replace("\u0000", "\\u0000");
    }

    private static String shortened(String reason) {
        String text = reason == null || reason.isBlank() ? "unknown" : reason;
        return text.length() <= MAX_REASON ? text : text.substring(0, MAX_REASON) + "…";
    }

    /**
     * Intake failures per minute from {@code from} to {@code to} (both truncated to the minute, inclusive), in
     * order, empty minutes as zeros. They are arrivals: a row that counts several counts them all in the minute of
     * its first.
     */
    public List<Long> perMinute(java.time.Instant from, java.time.Instant to) {
        return jdbc.queryForList("""
                WITH minutes AS (
                  SELECT generate_series(date_trunc('minute', ?::timestamptz), date_trunc('minute', ?::timestamptz),
                                         interval '1 minute') AS minute)
                SELECT coalesce(f.n, 0) FROM minutes m LEFT JOIN (
                  SELECT date_trunc('minute', occurred_at) AS minute, sum(occurrences) AS n FROM intake_failure
                  WHERE occurred_at >= (SELECT min(minute) FROM minutes)
                    AND occurred_at < (SELECT max(minute) FROM minutes) + interval '1 minute'
                  GROUP BY 1) f ON f.minute = m.minute
                ORDER BY m.minute""", Long.class, java.sql.Timestamp.from(from), java.sql.Timestamp.from(to));
    }
}
