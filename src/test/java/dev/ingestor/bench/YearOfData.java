package dev.ingestor.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A year of a busy installation, written straight into the database by the SQL of
 * {@code src/test/resources/bench/year-of-data.sql} (its head says the format and the shape of the data). The
 * counts scale with one factor: at 1.0, 5,000,000 jobs, 5,000,000 items with 20,000,000 versions, 20,000,000
 * published events, 1,000,000 keyed HTTP requests and 100,000 intake failures.
 *
 * <p>The indexes that back no constraint are dropped before the fill and built again after it, from their own
 * definitions ({@code pg_get_indexdef}), so whatever indexes the migrations of the day define come back as they
 * were; building an index once is many times cheaper than keeping it up row by row.
 */
final class YearOfData {

    static final String RESOURCE = "/bench/year-of-data.sql";
    private static final Pattern STEP = Pattern.compile("^-- (step|due|helpers): (.+?)(?: rows=(\\w+))?\\s*$");
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{(\\w+)}");
    private static final int VERSIONS_PER_ITEM = 4;
    private static final int PENDING = 20;
    /** Jobs in the set one retention round finds due: one batch of the shipped retention batch size. */
    static final int DUE_JOBS = 1000;
    private static final long ROWS_PER_CHUNK = 200_000;

    private final Map<String, String> values = new LinkedHashMap<>();
    private final List<Step> steps;
    private final Consumer<String> log;

    record Step(String kind, String name, String rows, String sql) {
    }

    YearOfData(double scale, Instant t0, Consumer<String> log) {
        this.log = log;
        long jobs = Math.max(1000, Math.round(5_000_000 * scale));
        values.put("jobs", Long.toString(jobs));
        values.put("items", Long.toString(jobs));
        values.put("versions", Integer.toString(VERSIONS_PER_ITEM));
        values.put("events", Long.toString(jobs * VERSIONS_PER_ITEM));
        values.put("http", Long.toString(Math.max(100, Math.round(1_000_000 * scale))));
        values.put("failures", Long.toString(Math.max(100, Math.round(100_000 * scale))));
        values.put("pending", Integer.toString(PENDING));
        values.put("due", Integer.toString(DUE_JOBS));
        values.put("t0", "'" + t0 + "'::timestamptz");
        this.steps = parse(read());
    }

    /** The row counts the steps generate, by placeholder name. */
    Map<String, String> counts() {
        return values;
    }

    /** Fills the database; every chunk is its own transaction. Returns the seconds it took. */
    double fill(Connection c) throws SQLException {
        long start = System.nanoTime();
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
            s.execute("SET statement_timeout = 0");
            s.execute("SET synchronous_commit = off");
            s.execute("SET maintenance_work_mem = '512MB'");
        }
        List<String> tables = tables();
        List<String> indexes = secondaryIndexes(c, tables);
        log.accept(String.format("dropping %d indexes that back no constraint on %s; built again after the fill",
                indexes.size(), tables));
        try (Statement s = c.createStatement()) {
            for (String definition : indexes) {
                s.execute("DROP INDEX " + indexName(c, definition));
            }
        }
        makeHelpers(c);
        for (Step step : steps) {
            if (step.kind().equals("step")) {
                run(c, step);
            }
        }
        long indexStart = System.nanoTime();
        try (Statement s = c.createStatement()) {
            for (String definition : indexes) {
                s.execute(definition);
            }
        }
        log.accept(String.format("indexes built again in %.0f s", (System.nanoTime() - indexStart) / 1e9));
        long vacuumStart = System.nanoTime();
        try (Statement s = c.createStatement()) {
            s.execute("VACUUM ANALYZE");
            s.execute("CHECKPOINT");
        }
        log.accept(String.format("VACUUM ANALYZE and CHECKPOINT in %.0f s", (System.nanoTime() - vacuumStart) / 1e9));
        return (System.nanoTime() - start) / 1e9;
    }

    /** Adds the set of rows one retention round finds due; {@code round} makes them new each time. */
    void addDue(Connection c, int round) throws SQLException {
        c.setAutoCommit(true);
        makeHelpers(c);
        try (Statement s = c.createStatement()) {
            for (Step step : steps) {
                if (step.kind().equals("due")) {
                    s.execute(fill(step.sql(), Map.of("round", Integer.toString(round))));
                }
            }
        }
    }

    /** The functions the steps and the due set call, made (again) on {@code c}: they live as long as its session. */
    private void makeHelpers(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (Step step : steps) {
                if (step.kind().equals("helpers")) {
                    s.execute(fill(step.sql(), Map.of()));
                }
            }
        }
    }

    /** What the due set holds, for the report. */
    String dueDescription() {
        return DUE_JOBS + " finished jobs and their content keys, " + DUE_JOBS * 5 + " published events, " + DUE_JOBS
                + " expired HTTP keys and " + DUE_JOBS + " intake failures, all past their retention";
    }

    private void run(Connection c, Step step) throws SQLException {
        long stepStart = System.nanoTime();
        if (step.rows() == null) {
            try (Statement s = c.createStatement()) {
                s.execute(fill(step.sql(), Map.of()));
            }
            return;
        }
        long total = Long.parseLong(values.get(step.rows()));
        long written = 0;
        long lastLog = System.nanoTime();
        for (long lo = 1; lo <= total; lo += ROWS_PER_CHUNK) {
            long hi = Math.min(total, lo + ROWS_PER_CHUNK - 1);
            try (Statement s = c.createStatement()) {
                written += s.executeUpdate(fill(step.sql(), Map.of("lo", Long.toString(lo), "hi", Long.toString(hi))));
            }
            if (System.nanoTime() - lastLog > 30e9 && hi < total) {
                lastLog = System.nanoTime();
                log.accept(String.format("  %s: %d of %d %s (%.0f%%) after %.0f s", step.name(), hi, total,
                        step.rows(), 100.0 * hi / total, (System.nanoTime() - stepStart) / 1e9));
            }
        }
        log.accept(String.format("%s: %,d rows in %.0f s", step.name(), written,
                (System.nanoTime() - stepStart) / 1e9));
    }

    List<Step> steps() {
        return steps;
    }

    /** A step's statement as it runs: the chunk {@code lo..hi} and the due set's {@code round} filled in. */
    String sql(Step step, int round, long lo, long hi) {
        return fill(step.sql(), Map.of("round", Integer.toString(round), "lo", Long.toString(lo), "hi",
                Long.toString(hi)));
    }

    /** The tables the steps write into, named as in their INSERT statements. */
    List<String> tables() {
        List<String> tables = new ArrayList<>();
        Matcher m = Pattern.compile("INSERT INTO (\\w+)").matcher(
                String.join("\n", steps.stream().map(Step::sql).toList()));
        while (m.find()) {
            if (!tables.contains(m.group(1))) {
                tables.add(m.group(1));
            }
        }
        return tables;
    }

    private static List<String> secondaryIndexes(Connection c, List<String> tables) throws SQLException {
        List<String> definitions = new ArrayList<>();
        try (var ps = c.prepareStatement("SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i"
                + " WHERE i.indrelid = ANY (SELECT to_regclass(t) FROM unnest(?::text[]) t)"
                + " AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)"
                + " ORDER BY i.indexrelid")) {
            ps.setArray(1, c.createArrayOf("text", tables.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    definitions.add(rs.getString(1));
                }
            }
        }
        return definitions;
    }

    private static String indexName(Connection c, String definition) {
        Matcher m = Pattern.compile("^CREATE (?:UNIQUE )?INDEX (\\S+) ON ").matcher(definition);
        if (!m.find()) {
            throw new IllegalStateException("not an index definition: " + definition);
        }
        return m.group(1);
    }

    private String fill(String sql, Map<String, String> more) {
        Matcher m = PLACEHOLDER.matcher(sql);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = more.containsKey(m.group(1)) ? more.get(m.group(1)) : values.get(m.group(1));
            if (value == null) {
                throw new IllegalStateException("no value for ${" + m.group(1) + "} in " + RESOURCE);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String read() {
        try (InputStream in = YearOfData.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + RESOURCE, e);
        }
    }

    static List<Step> parse(String text) {
        List<Step> steps = new ArrayList<>();
        String kind = null;
        String name = null;
        String rows = null;
        StringBuilder sql = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            Matcher m = STEP.matcher(line);
            if (m.matches()) {
                if (kind != null) {
                    steps.add(new Step(kind, name, rows, sql.toString().strip()));
                }
                kind = m.group(1);
                name = m.group(2);
                rows = m.group(3);
                sql.setLength(0);
            } else if (kind != null && !line.startsWith("--")) {
                sql.append(line).append('\n');
            }
        }
        if (kind != null) {
            steps.add(new Step(kind, name, rows, sql.toString().strip()));
        }
        return steps;
    }
}
