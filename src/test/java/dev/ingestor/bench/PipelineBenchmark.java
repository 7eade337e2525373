package dev.ingestor.bench;

import static org.awaitility.Awaitility.await;

import java.io.BufferedWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

import dev.ingestor.support.LiveEvents;
import dev.ingestor.support.TestKafka;
import dev.ingestor.support.TestPostgres;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * End to end: file dropped → job COMPLETED → every event published to Kafka (acks=all). Not a test: it
 * prints figures for docs/benchmarks.md. Run with {@code ./mvnw -B -Pbenchmark test -Dtest=PipelineBenchmark}.
 * After the two runs it measures the machine's own limits against the same PostgreSQL and broker
 * ({@link MachineLimits}) and prints every rate as a fraction of them.
 */
@Tag("benchmark")
// one INFO line per file and stage would go to the console of the build, which costs more than the line itself
// (as in HttpPushBenchmark; set here: levels from a DynamicPropertySource come too late for the logging system)
// the app as it runs, with its HTTP server (idle here): Camel's platform-http needs the server's settings
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "logging.level.dev.ingestor.intake=WARN", "logging.level.dev.ingestor.validation=WARN",
        "logging.level.dev.ingestor.processing=WARN"})
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PipelineBenchmark {

    /** Records per second end to end of each run so far, by name, for the ratios at the end. */
    private static final java.util.Map<String, Double> END_TO_END = new java.util.LinkedHashMap<>();
    /** Rows PostgreSQL wrote per record in each run, for the bound they set at the end. */
    private static final java.util.Map<String, Double> ROWS_PER_RECORD = new java.util.LinkedHashMap<>();

    private static final Path WORK = work();
    private static final Path INBOX = WORK.resolve("inbox");
    /**
     * A consumer reading the items topic while the run goes on, on the same cores, as an installation has one
     * (-Dbench.live-consumer=false: none, the relay alone with the broker).
     */
    private static final boolean LIVE_CONSUMER = Boolean
            .parseBoolean(System.getProperty("bench.live-consumer", "true"));

    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    DataSource dataSource;
    @Autowired
    org.apache.camel.CamelContext camelContext;
    @Autowired
    io.micrometer.core.instrument.MeterRegistry meters;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        // -Dbench.jdbc-url=jdbc:postgresql://host:port/db?user=...: another PostgreSQL (e.g. one with
        // pg_stat_statements, to see where its time goes)
        String url = System.getProperty("bench.jdbc-url");
        registry.add("spring.datasource.url", () -> url != null ? url : TestPostgres.jdbcUrl("bench_pipeline"));

        registry.add("ingestor.kafka.bootstrap-servers", TestKafka::bootstrapServers);
        registry.add("ingestor.data-dir", () -> WORK.resolve("data").toString());
        registry.add("ingestor.inbox-dir", INBOX::toString);
        registry.add("ingestor.pipeline.poll-interval", () -> "100ms");
        registry.add("ingestor.outbox.poll-interval", () -> "100ms");
        registry.add("ingestor.suppliers.ACME.file-drop.min-age", () -> "300ms");
        registry.add("ingestor.suppliers.ACME.file-drop.poll-interval", () -> "100ms");
    }

    @Test
    @Order(1)
    void oneMillionLineFile() throws Exception {
        Path staging = Files.createDirectories(WORK.resolve("staging"));
        warmUp(staging);
        emptyTables();
        Path file = write(staging.resolve("million.csv"), 0, 1_000_000);
        run("1 file x 1,000,000 lines (" + Files.size(file) / (1024 * 1024) + " MiB)", List.of(file), 1_000_000);
    }

    @Test
    @Order(2)
    void thousandFilesOfThousandLines() throws Exception {
        emptyTables();
        Path staging = Files.createDirectories(WORK.resolve("staging-1000"));
        List<Path> files = new ArrayList<>();
        for (int f = 0; f < 1000; f++) {
            files.add(write(staging.resolve("advice-" + f + ".csv"), 2_000_000 + f * 1000L, 1000));
        }
        run("1,000 files x 1,000 lines", files, 1_000_000);
    }

    /**
     * The first run of a fresh JVM pays for its JIT: on two cores the compiler threads keep compiling for a minute
     * and more of a large file (a JFR recording's compilations: most of them in the first 60 s of the 1,000,000-record
     * run after one 200,000-record warm-up), on the same cores as the pipeline. So files of -Dbench.warm-up-records
     * (200,000; 0 to measure cold) other records go through the same pipeline first, not counted, the tables emptied
     * after each, until one in which the JIT compiled for less than -Dbench.warm-up-jit-share (0.25) of its wall
     * time, at most -Dbench.warm-up-rounds (6) of them, as IntakeBenchmark and HttpPushBenchmark warm up: the
     * measured run starts warm.
     */
    private void warmUp(Path staging) throws Exception {
        int records = Integer.getInteger("bench.warm-up-records", 200_000);
        int rounds = Integer.getInteger("bench.warm-up-rounds", 6);
        double jitShare = Double.parseDouble(System.getProperty("bench.warm-up-jit-share", "0.25"));
        for (int round = 1; records > 0 && round <= rounds; round++) {
            emptyTables();
            Path file = write(staging.resolve("warm-up-" + round + ".csv"), 9_000_000, records);
            MachineStats before = MachineStats.now();
            long start = System.nanoTime();
            Files.move(file, Files.createDirectories(INBOX.resolve("ACME")).resolve(file.getFileName()));
            awaitCompleted(1, Duration.ofMillis(200));
            long published = awaitPublished(Duration.ofMillis(200));
            MachineStats after = MachineStats.now();
            double jit = MachineStats.jitShare(before, after);
            String line = String.format(java.util.Locale.ROOT,
                    "warm-up %d, not counted: 1 file x %,d lines, %,.0f records/s end to end, the JIT compiling for"
                            + " %.0f%% of it%s",
                    round, records, records / ((published - start) / 1e9), 100 * jit,
                    jit < jitShare ? " (under " + Math.round(100 * jitShare) + "%: warm)" : "");
            line += System.lineSeparator() + "  " + MachineStats.between(before, after);
            System.out.println("BENCHMARK " + line);
            append(line);
            if (jit < jitShare) {
                return;
            }
        }
    }

    private void emptyTables() {
        jdbc.execute(
                "TRUNCATE import_job, content_key, file_claim, job_record, item, item_version, outbox,"
                        + " outbox_published, dead_letter");
    }

    /**
     * The pipeline's fixed cost per job, which a small file (an HTTP push of one record) is mostly made of: 5,000
     * one-record files are taken in with the stage workers suspended, then the workers resume and the run is
     * timed from there to every event on Kafka, with the CPU of this JVM and of PostgreSQL per job. The large
     * files' warm-up leaves the small files' own way (their groups) to the JIT: rounds of them go first, not
     * counted, until one in which the JIT compiled for less than -Dbench.warm-up-jit-share of its wall time (at most
     * -Dbench.warm-up-rounds; -Dbench.warm-up-records=0 measures cold).
     */
    @Test
    @Order(3)
    void fiveThousandOneRecordJobs() throws Exception {
        int jobs = Integer.getInteger("bench.small-jobs", 5000);
        int rounds = Integer.getInteger("bench.warm-up-records", 200_000) > 0
                ? Integer.getInteger("bench.warm-up-rounds", 6)
                : 0;
        double jitShare = Double.parseDouble(System.getProperty("bench.warm-up-jit-share", "0.25"));
        for (int round = 1; round <= rounds; round++) {
            double jit = smallJobs(jobs, 6_000_000 + round * jobs, "warm-up " + round + ", not counted: ");
            if (jit < jitShare) {
                break;
            }
        }
        smallJobs(jobs, 5_000_000, "");
    }

    /** One run of {@code jobs} one-record jobs, its line reported after {@code label}; answers the JIT's share. */
    private double smallJobs(int jobs, long firstId, String label) throws Exception {
        emptyTables();
        Path staging = Files.createDirectories(WORK.resolve("staging-small"));
        List<Path> files = new ArrayList<>();
        for (int f = 0; f < jobs; f++) {
            files.add(write(staging.resolve("one-" + (firstId + f) + ".csv"), firstId + f, 1));
        }
        List<String> workers = camelContext.getRoutes().stream().map(org.apache.camel.Route::getRouteId)
                .filter(id -> id.matches("(validation|processing)-\\d+")).toList();
        for (String worker : workers) {
            camelContext.getRouteController().suspendRoute(worker);
        }
        Path acme = Files.createDirectories(INBOX.resolve("ACME"));
        for (Path file : files) {
            Files.move(file, acme.resolve(file.getFileName()));
        }
        await().atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(200)).until(() -> jdbc
                .queryForObject("SELECT count(*) FROM import_job WHERE state = 'RECEIVED'", Long.class) == jobs);
        Thread.sleep(2000); // the file consumer's last moves and the relay idle: only the pipeline is measured
        MachineStats before = MachineStats.now();
        ThreadCpu threadsBefore = ThreadCpu.now();
        GroupCounts groupsBefore = GroupCounts.now(meters);
        long start = System.nanoTime();
        for (String worker : workers) {
            camelContext.getRouteController().resumeRoute(worker);
        }
        long completed = awaitCompleted(jobs, Duration.ofMillis(100));
        long published = awaitPublished(Duration.ofMillis(100));
        MachineStats after = MachineStats.now();
        double toCompleted = (completed - start) / 1e9;
        double toPublished = (published - start) / 1e9;
        double jvm = (after.jvmCpuNanos - before.jvmCpuNanos) / 1e6 / jobs;
        double pg = (after.postgresTicks - before.postgresTicks) * 10.0 / jobs;
        String line = label + String.format(java.util.Locale.ROOT,
                "%,d one-record jobs, pipeline alone (taken in with the %d stage"
                        + " workers suspended): COMPLETED after %.1f s (%,.0f jobs/s), all events on Kafka after %.1f s (%,.0f jobs/s);"
                        + " CPU per job %.2f ms in this JVM + %.2f ms in PostgreSQL = %.2f ms",
                jobs, workers.size(), toCompleted, jobs / toCompleted, toPublished, jobs / toPublished, jvm, pg,
                jvm + pg);
        line += System.lineSeparator() + "  " + MachineStats.between(before, after);
        line += System.lineSeparator() + "  " + ThreadCpu.perUnit(threadsBefore, ThreadCpu.now(), jobs, "job");
        line += System.lineSeparator() + "  " + GroupCounts.now(meters).since(groupsBefore, jobs);
        System.out.println("BENCHMARK " + line);
        append(line);
        return MachineStats.jitShare(before, after);
    }

    /**
     * What the same PostgreSQL and broker can do at most for the work one record needs: an indexed row
     * written (the pipeline writes three per record: the item, its history row and its event), and an event
     * acknowledged by Kafka with acks=all.
     */
    @Test
    @Order(4)
    void machineLimits() throws Exception {
        MachineStats before = MachineStats.now();
        double rows = MachineLimits.indexedRowsPerSecond(dataSource, 300_000);
        double events = MachineLimits.kafkaRecordsPerSecond(TestKafka.bootstrapServers(), 300_000);
        double commits = MachineLimits.commitsPerSecond(dataSource);
        List<String> lines = new ArrayList<>();
        lines.add(String.format(java.util.Locale.ROOT,
                "machine: indexed rows/s (unique text key + 200-byte text, 1,000 per"
                        + " statement, one commit each, one connection) %,.0f; Kafka records/s (300 bytes, keyed, acks=all, one"
                        + " idempotent producer) %,.0f; single-row INSERT commits/s (synchronous_commit=on) %,.0f",
                rows, events, commits));
        lines.add("  during the machine limits: " + MachineStats.between(before, MachineStats.now()));
        // each row a record costs is at least one indexed row of the machine's rate, on one of the two cores
        END_TO_END.forEach((name, rate) -> lines.add(String.format(java.util.Locale.ROOT,
                "  %s: %,.0f records/s end to end = %.2f of the indexed-row rate, %.2f of the Kafka rate;"
                        + " %.2f rows written per record, so one core of PostgreSQL writing nothing else tops out near %,.0f records/s",
                name, rate, rate / rows, rate / events, ROWS_PER_RECORD.getOrDefault(name, 0.0),
                rows / Math.max(1e-9, ROWS_PER_RECORD.getOrDefault(name, 0.0)))));
        for (String line : lines) {
            System.out.println("BENCHMARK " + line);
        }
        append(String.join(System.lineSeparator(), lines));
    }

    private void run(String name, List<Path> files, long records) throws Exception {
        // joined before the figures start: its group join is not the pipeline's
        try (LiveEvents live = LIVE_CONSUMER ? new LiveEvents("ingestor.items") : null) {
            run(name, files, records, live);
        }
    }

    private void run(String name, List<Path> files, long records, LiveEvents live) throws Exception {
        System.gc();
        List<MemoryPoolMXBean> heap = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP).toList();
        heap.forEach(MemoryPoolMXBean::resetPeakUsage);
        // the pools peak at different moments, so their peaks' sum is only an upper bound: sample the heap too
        java.util.concurrent.atomic.AtomicLong sampled = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.ScheduledExecutorService sampler = java.util.concurrent.Executors
                .newSingleThreadScheduledExecutor();
        sampler.scheduleAtFixedRate(() -> sampled.accumulateAndGet(
                ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), Math::max),
                0, 20, java.util.concurrent.TimeUnit.MILLISECONDS);
        MachineStats before = MachineStats.now();
        ThreadCpu threadsBefore = ThreadCpu.now();
        long rowsBefore = rowsWritten();
        long start = System.nanoTime();
        Path acme = Files.createDirectories(INBOX.resolve("ACME"));
        for (Path file : files) {
            Files.move(file, acme.resolve(file.getFileName()));
        }
        long completed = awaitCompleted(files.size(), Duration.ofMillis(200));
        long published = awaitPublished(Duration.ofMillis(200));
        String consumed = "no live consumer (-Dbench.live-consumer=false)";
        if (live != null) {
            await().atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(100))
                    .until(() -> live.eventsRead() >= records);
            double toRead = (live.lastArrival() - start) / 1e9;
            consumed = String.format(java.util.Locale.ROOT, "a live consumer (one, in this JVM, reading as events"
                    + " arrived) read all %,d after %.1f s (%,.0f records/s end to end)", live.eventsRead(), toRead,
                    records / toRead);
        }
        long events = jdbc.queryForObject("SELECT count(*) FROM outbox_published", Long.class);
        if (events != records) {
            throw new IllegalStateException(events + " events published, " + records + " expected");
        }
        MachineStats after = MachineStats.now();
        ThreadCpu threadsAfter = ThreadCpu.now();
        sampler.shutdownNow();
        long peak = heap.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
        double toCompleted = (completed - start) / 1e9;
        double toPublished = (published - start) / 1e9;
        String line = String.format(
                "%s: %,d records; COMPLETED after %.1f s (%,.0f records/s); all events on Kafka after %.1f s"
                        + " (%,.0f records/s end to end); heap used at most %,d MiB sampled every 20 ms"
                        + " (sum of the pools' peaks %,d MiB; max heap %,d MiB)",
                name, records, toCompleted, records / toCompleted, toPublished, records / toPublished,
                sampled.get() / (1024 * 1024), peak / (1024 * 1024), Runtime.getRuntime().maxMemory() / (1024 * 1024));
        line += System.lineSeparator() + "  " + consumed;
        line += System.lineSeparator() + "  " + MachineStats.between(before, after);
        line += System.lineSeparator() + "  " + ThreadCpu.perUnit(threadsBefore, threadsAfter, records, "record");
        double rows = (rowsWritten() - rowsBefore) / (double) records;
        line += System.lineSeparator() + String.format(java.util.Locale.ROOT, "  PostgreSQL CPU-µs per record %.1f;"
                + " rows written per record %.2f (inserted, updated or deleted, every table)",
                (after.postgresTicks - before.postgresTicks) * 1e4 / records, rows);
        System.out.println("BENCHMARK " + line);
        END_TO_END.put(name, records / toPublished);
        ROWS_PER_RECORD.put(name, rows);
        append(line);
    }

    /**
     * Rows inserted, updated and deleted so far in every table of this database, as PostgreSQL's statistics count
     * them (a transaction's counts arrive when it ends, within half a second). Waits for them to settle first.
     */
    private long rowsWritten() throws InterruptedException {
        Thread.sleep(1000);
        Long rows = jdbc.queryForObject(
                "SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_user_tables", Long.class);
        return rows == null ? 0 : rows;
    }

    /** Waits until {@code jobs} jobs are COMPLETED and answers when (System.nanoTime). */
    private long awaitCompleted(long jobs, Duration poll) {
        await().atMost(Duration.ofMinutes(30)).pollInterval(poll).until(() -> {
            // a job that ended otherwise never completes: stop at once instead of waiting out the limit
            Long ended = jdbc.queryForObject("SELECT count(*) FROM import_job WHERE state IN ('FAILED', 'REJECTED')",
                    Long.class);
            if (ended != null && ended > 0) {
                throw new IllegalStateException(ended + " job(s) FAILED or REJECTED; see the dead letters");
            }
            return jdbc.queryForObject(
                    "SELECT count(*) FROM import_job WHERE state IN ('COMPLETED', 'COMPLETED_WITH_ERRORS')",
                    Long.class) == jobs;
        });
        return System.nanoTime();
    }

    /** Waits until no event is left unpublished and answers when (System.nanoTime). */
    private long awaitPublished(Duration poll) {
        // waits on the backlog (the relay's own index), not on a count of every published row: that count scans
        // the whole outbox and, every 200 ms, took a good part of the database the relay was measured on
        await().atMost(Duration.ofMinutes(30)).pollInterval(poll).until(() -> Boolean.TRUE.equals(jdbc
                .queryForObject("SELECT NOT EXISTS (SELECT 1 FROM outbox)", Boolean.class)));
        return System.nanoTime();
    }

    private static void append(String text) throws IOException {
        Path out = Path.of("target", "benchmarks");
        Files.createDirectories(out);
        Files.writeString(out.resolve("pipeline.txt"), text + System.lineSeparator(),
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    }

    /**
     * -Dbench.pad=true: every file written ends in a padding line, as the HTTP benchmark's bodies do (meant for the
     * one-record run).
     */
    private static final boolean PAD = Boolean.getBoolean("bench.pad");

    private static Path write(Path file, long firstId, int lines) throws IOException {
        try (BufferedWriter out = Files.newBufferedWriter(file)) {
            out.write("source_id,source_version,sku,quantity,delivery_date,warehouse\n");
            for (int i = 0; i < lines; i++) {
                long id = firstId + i;
                out.write("SRC-" + id + ",1,SKU-" + (id % 5000) + "," + (1 + id % 90) + ",2026-12-" + (10 + id % 18)
                        + ",WH-" + (id % 7) + "\n");
            }
            if (PAD) {
                // as the HTTP benchmark's bodies: a line the validation quarantines, to about 4 KiB
                out.write("x".repeat(3900));
            }
        }
        return file;
    }

    private static Path work() {
        try {
            return Files.createTempDirectory("ingestor-bench-");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
