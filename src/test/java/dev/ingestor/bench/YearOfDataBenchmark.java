package dev.ingestor.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

import dev.ingestor.support.TestKafka;
import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.Route;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A year of a busy installation against an empty database, side by side in one run of one application: the
 * whole application with the shipped defaults (embedded PostgreSQL with fsync and synchronous commits, the
 * pipeline on, an in-process Kafka broker) first measured on its empty database, then the database filled with
 * SQL ({@link YearOfData}, {@code src/test/resources/bench/year-of-data.sql}) and measured again: new pushes per
 * second and their p99, the admin console's calls (its overview and whole refresh, every 3 s while it is open; the
 * first page of jobs, a search, a filter), one retention round with nothing and with something due, and a
 * Prometheus scrape (the backlog gauges read the database). Each warm (after a warm-up, many calls) and cold (the
 * first call with PostgreSQL's shared buffers emptied, as after a restart of the database). The aim: every figure
 * of the filled database within 1.5x of the empty one's. Not a test.
 *
 * <p>{@code ./mvnw -B -Pbenchmark test -Dtest=YearOfDataBenchmark}. Knobs: {@code year.scale} (0.05, about 10
 * minutes; 0.2 took 25; 1.0 is 5,000,000 jobs, 20,000,000 versions and events), {@code year.seconds} (10 per push
 * phase), {@code year.calls} (40 per console call), {@code year.gauge-samples} (5 fresh scrapes, 5 s apart),
 * {@code year.keep} (false: the data folder is deleted at the end; true: it is made under target/ instead of the
 * test JVM's temporary folder, which the next build empties, and kept until {@code ./mvnw clean}).
 */
@Tag("benchmark")
// a test context leaves the Prometheus registry out unless asked; the scrape is one of the figures
@AutoConfigureMetrics
@DirtiesContext // its database is of no use to anything after it
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "logging.level.dev.ingestor.intake=WARN", "logging.level.dev.ingestor.validation=WARN",
        "logging.level.dev.ingestor.processing=WARN", "logging.level.dev.ingestor.housekeeping=WARN",
        // the per-key rate is a backstop against a looping client; the benchmark measures the server, not that limit
        "ingestor.http.limits.requests-per-second=1000000", "ingestor.http.limits.burst=2000000",
        // retention runs when the benchmark says so, not on its timer in the middle of a phase
        "ingestor.retention.interval=30d",
        // the year's events are kept (the shipped 7 days would leave the last week's): what a year of them costs
        "ingestor.retention.outbox-max-age=365d"})
class YearOfDataBenchmark {

    private static final double SCALE = Double.parseDouble(System.getProperty("year.scale", "0.05"));
    private static final int SECONDS = Integer.getInteger("year.seconds", 10);
    private static final int CALLS = Integer.getInteger("year.calls", 40);
    private static final int GAUGE_SAMPLES = Integer.getInteger("year.gauge-samples", 5);
    private static final int CONNECTIONS = Integer.getInteger("year.connections", 32);
    private static final boolean KEEP = Boolean.getBoolean("year.keep");
    private static final Path WORK = workFolder();
    /** Disk the filled database takes per 1.0 of scale, measured (docs/benchmarks.md), with room for the WAL. */
    private static final double BYTES_PER_SCALE = 30e9;
    private static final double AIM = 1.5;
    private static final int BODY_SIZE = 4096;
    private static final String ADMIN = "/api/v1/admin";
    private static final Duration GAUGE_SNAPSHOT_AGE = Duration.ofMillis(5200);
    private static final int RETENTION_ROUNDS = 3;

    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    DataSource dataSource;
    @Autowired
    CamelContext camelContext;
    @LocalServerPort
    int port;

    private final BenchReport report = new BenchReport(
            Path.of(System.getProperty("basedir", ".")).resolve("target/benchmarks/year-of-data.txt"));
    private HttpClient client;
    private String base;
    private Connection superuser;
    private boolean evicting;
    private int dueRound;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("ingestor.kafka.bootstrap-servers", TestKafka::bootstrapServers);
        registry.add("ingestor.data-dir", () -> WORK.resolve("data").toString());
        registry.add("ingestor.inbox-dir", () -> WORK.resolve("inbox").toString());
    }

    @Test
    @Timeout(value = 6, unit = TimeUnit.HOURS) // the fill at scale 1.0 takes hours on two cores
    void aYearOfData() throws Exception {
        try {
            run();
        } finally {
            if (superuser != null) {
                superuser.close();
            }
        }
    }

    /**
     * The data folder, deleted when the JVM ends (unless {@code year.keep}): tens of GB at full scale. Spring closes
     * the context, and the app its PostgreSQL, in a shutdown hook of their own, so this one waits for the server to
     * be gone (its {@code postmaster.pid} removed) first.
     */
    private static Path workFolder() {
        if (KEEP) {
            try {
                Path target = Path.of(System.getProperty("basedir", ".")).resolve("target");
                Path kept = Files.createTempDirectory(Files.createDirectories(target), "year-of-data-kept-");
                System.out.println("[bench] the data folder is kept: " + kept.toAbsolutePath());
                return kept;
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        Path work = BenchFiles.createWork("ingestor-year-bench-");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Path pid = work.resolve("data/postgres/postmaster.pid");
            long until = System.nanoTime() + 120_000_000_000L;
            try {
                while (Files.exists(pid) && System.nanoTime() < until) {
                    Thread.sleep(200);
                }
                BenchFiles.deleteTree(work);
            } catch (Exception e) {
                System.err.println("could not delete " + work + ": " + e);
            }
        }));
        return work;
    }

    private void run() throws Exception {
        requireDisk();
        YearOfData year = new YearOfData(SCALE, Instant.now().truncatedTo(ChronoUnit.SECONDS), report::line);
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10))
                .build();
        base = "http://127.0.0.1:" + port;
        superuser = superuserConnection();
        evicting = canEvict();
        report.line("A year of data beside an empty database: scale %s (%s), %d cores, %s, %s; %s", SCALE,
                year.counts(), Runtime.getRuntime().availableProcessors(), BenchMachine.cpuModel(),
                BenchMachine.memTotal(), BenchMachine.codeVersion());
        report.line("cold = the first call %s; warm = after a warm-up, %d calls each (pushes: %d connections for %d s)",
                evicting
                        ? "with PostgreSQL's shared buffers emptied (pg_buffercache_evict_all), the OS cache and the"
                                + " JIT as they are"
                        : "of its kind (pg_buffercache is not there: PostgreSQL's buffers stay as they are)",
                CALLS, CONNECTIONS, SECONDS);

        warmUp();
        Figures empty = measure(year, "empty database", "empty");

        report.header("filling the database (scale " + SCALE + ")");
        List<String> suspended = suspendPollers();
        double fillSeconds = year.fill(superuser);
        for (String id : suspended) {
            camelContext.getRouteController().resumeRoute(id);
        }
        report.line("filled in %.0f s; database %s on disk; largest tables: %s", fillSeconds,
                jdbc.queryForObject("SELECT pg_size_pretty(pg_database_size(current_database()))", String.class),
                String.join(", ", jdbc.queryForList("SELECT c.relname || ' ' || pg_size_pretty("
                        + "pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                        + " WHERE n.nspname = current_schema() AND c.relkind = 'r'"
                        + " ORDER BY pg_total_relation_size(c.oid) DESC LIMIT 6", String.class)));
        report.line("jobs by state: %s", jdbc.queryForList("SELECT state || ' ' || count(*) FROM import_job"
                + " GROUP BY state ORDER BY count(*) DESC", String.class));
        assertThat(count("import_job")).as("jobs after the fill").isGreaterThanOrEqualTo(
                Long.parseLong(year.counts().get("jobs")));
        Figures filled = measure(year, "filled database", "filled");

        sideBySide(year, empty, filled);
        assertThat(empty.pushes.requests).isPositive();
        assertThat(filled.pushes.requests).isPositive();
        long errors = 0;
        for (Figures f : List.of(empty, filled)) {
            errors += f.pushes.latencies.errors();
            errors += f.cold.values().stream().mapToLong(Latencies::errors).sum();
            errors += f.warm.values().stream().mapToLong(Latencies::errors).sum();
        }
        // after the figures are printed: a call that failed (a statement cut off by its time limit, say) is a finding
        assertThat(errors).as("non-2xx answers (printed above)").isZero();
    }

    /** Refuses a scale whose data would not fit, before anything is written. */
    private static void requireDisk() throws Exception {
        long free = Files.getFileStore(WORK).getUsableSpace();
        double needed = BYTES_PER_SCALE * SCALE + 2e9;
        if (free < needed) {
            throw new IllegalStateException(String.format(Locale.ROOT,
                    "year.scale=%s needs about %.0f GB free in %s (%.0f GB per 1.0 of scale, with room for the WAL),"
                            + " and %.1f GB are free: choose a smaller -Dyear.scale or free the space",
                    SCALE, needed / 1e9, WORK.getParent(), BYTES_PER_SCALE / 1e9, free / 1e9));
        }
    }

    /**
     * The JIT: every kind of call, not counted, in rounds until it compiles for less than a quarter of a round's
     * wall time (on two cores its threads would otherwise compete with the first measured phase), at most 4.
     */
    private void warmUp() throws Exception {
        long start = System.nanoTime();
        List<String> shares = new ArrayList<>();
        for (int round = 0; round < 4; round++) {
            MachineStats before = MachineStats.now();
            pushes("warm" + round, Math.max(3, SECONDS / 2));
            waitForThePipeline();
            for (ConsoleCall call : consoleCalls()) {
                calls(call, Math.max(5, CALLS / 4));
            }
            scrape();
            retain();
            double jit = MachineStats.jitShare(before, MachineStats.now());
            shares.add(String.format(Locale.ROOT, "%.0f%%", 100 * jit));
            if (jit < 0.25) {
                break;
            }
        }
        report.line("warm-up: %.0f s, %d round(s), the JIT compiling for %s of each", (System.nanoTime() - start) / 1e9,
                shares.size(), String.join(", ", shares));
    }

    private Figures measure(YearOfData year, String label, String prefix) throws Exception {
        report.header(label);
        waitForThePipeline();
        MachineStats limitsBefore = MachineStats.now();
        double commits = MachineLimits.commitsPerSecond(dataSource);
        double fsyncs = MachineLimits.fsyncsPerSecond(WORK.resolve("data"));
        report.line("machine: single-row INSERT commits/s (synchronous_commit=on) %.0f; 4 KiB write+fsync/s %.0f",
                commits, fsyncs);
        report.line("  " + MachineStats.between(limitsBefore, MachineStats.now()));
        report.line("jobs %d, item versions %d, published events %d", count("import_job"), count("item_version"),
                count("outbox_published"));

        Map<String, Latencies> cold = new LinkedHashMap<>();
        for (ConsoleCall call : consoleCalls()) {
            evict();
            cold.put(call.name(), calls(call, 1));
        }
        Thread.sleep(GAUGE_SNAPSHOT_AGE.toMillis());
        evict();
        cold.put("gauges: Prometheus scrape, fresh", timed(this::scrape));
        evict();
        cold.put("retention round, nothing due", timed(() -> {
            retain();
            return true;
        }));
        evict();
        cold.put("one new push", timed(() -> ok(client.send(push(prefix + "-cold", 0),
                HttpResponse.BodyHandlers.ofString()))));
        cold.forEach((name, l) -> report.line("cold  %-44s %s", name, l));

        waitForThePipeline();
        MachineStats before = MachineStats.now();
        Pushes pushes = pushes(prefix, SECONDS);
        report.line("warm  %-44s %.0f req/s (%.3f of the commits/s), %s", "new pushes", pushes.rps,
                pushes.rps / commits,
                pushes.latencies);
        report.line("  " + MachineStats.between(before, MachineStats.now()));
        waitForThePipeline();

        Map<String, Latencies> warm = new LinkedHashMap<>();
        for (ConsoleCall call : consoleCalls()) {
            warm.put(call.name(), calls(call, CALLS));
        }
        warm.put("gauges: Prometheus scrape, fresh", repeated(GAUGE_SAMPLES, GAUGE_SNAPSHOT_AGE, this::scrape));
        warm.put("gauges: Prometheus scrape, within 5 s", repeated(CALLS, Duration.ZERO, this::scrape));
        warm.put("retention round, nothing due", repeated(RETENTION_ROUNDS, Duration.ZERO, () -> {
            retain();
            return true;
        }));
        long[] something = new long[RETENTION_ROUNDS];
        String deleted = "";
        for (int i = 0; i < RETENTION_ROUNDS; i++) {
            year.addDue(superuser, ++dueRound);
            long t = System.nanoTime();
            deleted = retain();
            something[i] = System.nanoTime() - t;
            // what was timed is a round that found the due set due and deleted it
            assertThat(jdbc.queryForObject("SELECT count(*) FROM import_job WHERE file_name LIKE ?", Long.class,
                    "old-" + dueRound + "-%")).as("due jobs left after a retention round").isZero();
            assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_published WHERE event_key LIKE 'ACME:OLD-%'",
                    Long.class)).as("due events left after a retention round").isZero();
        }
        warm.put("retention round, something due", Latencies.of(something, 0));
        warm.forEach((name, l) -> report.line("warm  %-44s %s", name, l));
        report.line("  a round with something due deleted: %s", deleted);
        return new Figures(pushes, cold, warm);
    }

    private void sideBySide(YearOfData year, Figures empty, Figures filled) {
        report.header("side by side: filled / empty (aim: within " + AIM + "x)");
        report.line("%-52s %14s %14s %8s", "", "empty", "filled", "ratio");
        row("new pushes, req/s (ratio empty / filled)", empty.pushes.rps, filled.pushes.rps,
                empty.pushes.rps / filled.pushes.rps, "%.0f");
        row("new pushes, p99 ms", empty.pushes.latencies.p99(), filled.pushes.latencies.p99(), Double.NaN, "%.1f");
        for (String name : empty.warm.keySet()) {
            row("warm p50 " + name, empty.warm.get(name).p50(), filled.warm.get(name).p50(), Double.NaN, "%.1f");
            row("warm p99 " + name, empty.warm.get(name).p99(), filled.warm.get(name).p99(), Double.NaN, "%.1f");
        }
        for (String name : empty.cold.keySet()) {
            row("cold " + name, empty.cold.get(name).p50(), filled.cold.get(name).p50(), Double.NaN, "%.1f");
        }
        report.line("(ms unless said; the something-due rounds each deleted %s)", year.dueDescription());
    }

    private void row(String name, double empty, double filled, double ratio, String format) {
        double r = Double.isNaN(ratio) ? filled / empty : ratio;
        report.line("%-52s %14s %14s %7.2fx %s", name, String.format(Locale.ROOT, format, empty),
                String.format(Locale.ROOT, format, filled), r, r <= AIM ? "" : "over the aim");
    }

    private List<ConsoleCall> consoleCalls() {
        // as the console asks (static/admin/admin.js, paging): the first page by size alone, later ones by cursor
        String page = "size=25";
        return List.of(
                new ConsoleCall("console overview", List.of(ADMIN + "/overview")),
                // what the console's page asks for every 3 s while it is open (static/admin/admin.js, refresh)
                new ConsoleCall("console refresh (its 6 calls)", List.of(ADMIN + "/overview",
                        ADMIN + "/intake-failures?" + page, ADMIN + "/throughput?minutes=60", ADMIN + "/jobs?" + page,
                        ADMIN + "/failed-jobs?" + page, ADMIN + "/dead-letters?" + page)),
                new ConsoleCall("job list, first page", List.of(ADMIN + "/jobs?" + page)),
                new ConsoleCall("job search, part of a file name", List.of(ADMIN + "/jobs?" + page + "&q=4242.csv")),
                new ConsoleCall("job list, supplier and state", List.of(ADMIN + "/jobs?" + page
                        + "&supplier=GLOBEX&state=FAILED")));
    }

    private record ConsoleCall(String name, List<String> paths) {
    }

    private record Pushes(double rps, long requests, Latencies latencies) {
    }

    private record Figures(Pushes pushes, Map<String, Latencies> cold, Map<String, Latencies> warm) {
    }

    private interface Call {
        boolean call() throws Exception;
    }

    /** One call, timed; a p50 of one. */
    private static Latencies timed(Call call) throws Exception {
        long t = System.nanoTime();
        boolean ok = call.call();
        return Latencies.one(System.nanoTime() - t, !ok);
    }

    /** {@code n} calls, each after {@code pause}. */
    private static Latencies repeated(int n, Duration pause, Call call) throws Exception {
        long[] nanos = new long[n];
        long errors = 0;
        for (int i = 0; i < n; i++) {
            Thread.sleep(pause.toMillis());
            long t = System.nanoTime();
            if (!call.call()) {
                errors++;
            }
            nanos[i] = System.nanoTime() - t;
        }
        return Latencies.of(nanos, errors);
    }

    private Latencies calls(ConsoleCall call, int n) throws Exception {
        long[] nanos = new long[n];
        long errors = 0;
        for (int i = 0; i < n; i++) {
            long t = System.nanoTime();
            for (String path : call.paths()) {
                HttpResponse<String> response = client.send(admin(path), HttpResponse.BodyHandlers.ofString());
                if (!ok(response) && ++errors <= 3) {
                    report.line("non-2xx answer to %s: %d %s", path, response.statusCode(), response.body());
                }
            }
            nanos[i] = System.nanoTime() - t;
        }
        return Latencies.of(nanos, errors);
    }

    private boolean scrape() throws Exception {
        HttpResponse<String> response = client.send(admin("/actuator/prometheus"),
                HttpResponse.BodyHandlers.ofString());
        if (!ok(response) || !response.body().contains("ingestor_jobs")) {
            report.line("scrape answered %d without the backlog gauges", response.statusCode());
            return false;
        }
        return true;
    }

    /** One retention round, as the housekeeping route runs it; what it deleted. */
    private String retain() {
        try (ProducerTemplate template = camelContext.createProducerTemplate()) {
            return String.valueOf(template.requestBody("bean:housekeeping?method=retain", (Object) null));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private HttpRequest admin(String path) {
        return HttpRequest.newBuilder(URI.create(base + path)).header("X-Api-Key", "admin-demo-key").GET().build();
    }

    private HttpRequest push(String prefix, long i) {
        String head = "source_id,sku,quantity,delivery_date\n" + prefix + "-" + i + ",SKU,1,2026-12-01\n";
        byte[] body = Arrays.copyOf(head.getBytes(StandardCharsets.UTF_8), BODY_SIZE);
        Arrays.fill(body, head.length(), BODY_SIZE, (byte) 'x');
        return HttpRequest.newBuilder(URI.create(base + "/api/v1/suppliers/ACME/files"))
                .header("X-Api-Key", "acme-demo-key").header("Content-Type", "application/octet-stream")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
    }

    private static boolean ok(HttpResponse<?> response) {
        return response.statusCode() / 100 == 2;
    }

    /** CONNECTIONS threads, each with one new push in flight, for {@code seconds}. */
    private Pushes pushes(String prefix, int seconds) throws Exception {
        ClosedLoop.Run run = ClosedLoop.run(client, CONNECTIONS, seconds, i -> push(prefix, i),
                response -> report.line("non-2xx answer to a push: %d %s", response.statusCode(), response.body()));
        return new Pushes(run.rate(), run.nanos().length, Latencies.of(run.nanos(), run.errors()));
    }

    /** Each phase starts with the pipeline idle: the jobs of the one before are through their stages. */
    private void waitForThePipeline() throws InterruptedException {
        long settle = System.nanoTime() + 300_000_000_000L;
        while (System.nanoTime() < settle && jdbc.queryForObject("SELECT count(*) FROM import_job"
                + " WHERE state IN ('RECEIVED', 'VALIDATING', 'PROCESSING') AND lease_owner IS DISTINCT FROM"
                + " 'year-bench-other'", Long.class) > 0) {
            Thread.sleep(200);
        }
    }

    /**
     * Stops what polls the database on a timer (stage workers, relay, notifications, file drops) while the fill
     * runs without its indexes, where every poll would scan the tables being written.
     */
    private List<String> suspendPollers() throws Exception {
        List<String> suspended = new ArrayList<>();
        for (Route route : camelContext.getRoutes()) {
            String uri = route.getEndpoint().getEndpointUri();
            if (uri.startsWith("scheduler:") || uri.startsWith("timer:") || uri.startsWith("file:")
                    || uri.startsWith("sftp:")) {
                camelContext.getRouteController().suspendRoute(route.getRouteId());
                suspended.add(route.getRouteId());
            }
        }
        report.line("suspended while filling: %s", suspended);
        return suspended;
    }

    private long count(String table) {
        return jdbc.queryForObject("SELECT count(*) FROM " + table, Long.class);
    }

    /** The embedded server's superuser, for the fill and for emptying the shared buffers. */
    private Connection superuserConnection() throws Exception {
        int pgPort = jdbc.queryForObject("SELECT inet_server_port()", Integer.class);
        String database = jdbc.queryForObject("SELECT current_database()", String.class);
        Path passwordFile = WORK.resolve("data").resolve("postgres-superuser.password");
        String password = Files.readAllLines(passwordFile).get(0).trim();
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + pgPort + "/" + database, "postgres",
                password);
    }

    private boolean canEvict() {
        try (Statement s = superuser.createStatement()) {
            s.execute("CREATE EXTENSION IF NOT EXISTS pg_buffercache");
            s.execute("SELECT pg_buffercache_evict_all()");
            return true;
        } catch (SQLException e) {
            report.line("cannot empty PostgreSQL's buffers: %s", e.getMessage());
            return false;
        }
    }

    private void evict() throws SQLException {
        if (evicting) {
            try (Statement s = superuser.createStatement()) {
                s.execute("SELECT pg_buffercache_evict_all()");
            }
        }
    }
}
