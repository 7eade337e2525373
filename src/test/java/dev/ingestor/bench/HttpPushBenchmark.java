package dev.ingestor.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import javax.sql.DataSource;

import dev.ingestor.support.TestKafka;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * HTTP file pushes against the whole application (shipped defaults: embedded PostgreSQL with fsync and
 * synchronous commits, raw files fsynced, the pipeline on), driven from this JVM by the JDK's HttpClient on a
 * fixed pool of threads, one request in flight per thread. In one run, so that each figure reads against the
 * others: the trivial endpoint of the same server ({@code GET /actuator/info}), new 4 KiB pushes, duplicate
 * pushes (many distinct bodies, all already keyed), and what the machine itself can do (PostgreSQL single-row
 * inserts/s with synchronous commit, fsyncs/s in the data folder, SHA-256 MB/s). Side by side, in the same run
 * with the stage workers suspended (intake alone): the shipped push, the same push without the idempotent
 * consumer and with Camel's stock {@code JdbcMessageIdRepository} (camel-sql) in its place
 * ({@link #addComparisonRoutes}). Not a test.
 *
 * <p>{@code ./mvnw -B -Pbenchmark test -Dtest=HttpPushBenchmark}. Knobs: {@code bench.seconds} (15 per phase),
 * {@code bench.connections} (32), {@code bench.duplicates} (5,000 distinct bodies re-sent).
 */
@Tag("benchmark")
// one INFO line per file and stage would go to the console of the build, which costs more than the line itself
// (set here: logging levels from a DynamicPropertySource come too late for the logging system)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "logging.level.dev.ingestor.intake=WARN", "logging.level.dev.ingestor.validation=WARN",
        "logging.level.dev.ingestor.processing=WARN",
        // the per-key rate is a backstop against a looping client; with the JIT warm the trivial endpoint outruns
        // the shipped 5,000 a second, and the benchmark measures the server, not that limit
        "ingestor.http.limits.requests-per-second=1000000", "ingestor.http.limits.burst=2000000"})
class HttpPushBenchmark {

    private static final Path WORK = work();
    private static final int SECONDS = Integer.getInteger("bench.seconds", 15);
    private static final int CONNECTIONS = Integer.getInteger("bench.connections", 32);
    private static final int DUPLICATES = Integer.getInteger("bench.duplicates", 5000);
    private static final int BODY_SIZE = 4096;
    private static final int WARM_UP_ROUNDS = Integer.getInteger("bench.warm-up-rounds", 8);
    private static final double WARM_UP_JIT_SHARE = Double
            .parseDouble(System.getProperty("bench.warm-up-jit-share", "0.25"));

    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    DataSource dataSource;
    @Autowired
    CamelContext camelContext;
    @Autowired
    io.micrometer.core.instrument.MeterRegistry meters;
    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("ingestor.kafka.bootstrap-servers", TestKafka::bootstrapServers);
        registry.add("ingestor.data-dir", () -> WORK.resolve("data").toString());
        registry.add("ingestor.inbox-dir", () -> WORK.resolve("inbox").toString());
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.MINUTES) // six phases, each after the pipeline worked off the one before
    void pushes() throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        String base = "http://127.0.0.1:" + port;
        URI info = URI.create(base + "/actuator/info");
        URI files = URI.create(base + "/api/v1/suppliers/ACME/files");
        // the actuator asks for a key like every path but health; the admin's, so the supplier's limits stay the
        // pushes'
        LongFunction<HttpRequest> trivial = i -> HttpRequest.newBuilder(info).header("X-Api-Key", "admin-demo-key")
                .GET().build();
        addComparisonRoutes();
        URI plain = URI.create(base + "/api/v1/bench/suppliers/ACME/files-without-idempotent-consumer");
        URI stock = URI.create(base + "/api/v1/bench/suppliers/ACME/files-with-stock-repository");
        // warm-up (JIT): every kind of request, bodies apart from the measured ones, in rounds until the JIT is
        // done with them. On two cores its compiler threads compete with the requests: after one round hot parts of
        // the request path (Spring's handler lookup among them) were still waiting for their optimized code during
        // the first measured phase, which then measured the JIT's queue (JFR, docs/benchmarks.md, fifth round)
        List<String> warmUp = new ArrayList<>();
        int each = Math.max(3, SECONDS / 3);
        for (int round = 1; round <= WARM_UP_ROUNDS; round++) {
            String prefix = "warm" + round;
            MachineStats before = MachineStats.now();
            run(client, each, trivial);
            run(client, each, i -> push(files, prefix, i));
            run(client, each, i -> push(files, prefix, i % DUPLICATES));
            run(client, each, i -> push(plain, prefix + "-plain", i));
            run(client, each, i -> push(stock, prefix + "-stock", i % DUPLICATES));
            double jit = MachineStats.jitShare(before, MachineStats.now());
            warmUp.add(String.format(Locale.ROOT, "%.0f%%", 100 * jit));
            if (jit < WARM_UP_JIT_SHARE) {
                break;
            }
        }

        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT,
                "HTTP push benchmark: 4 KiB bodies, %d connections (JDK HttpClient, fixed pool),"
                        + " %d s per phase, pipeline on, %d cores; %s",
                CONNECTIONS, SECONDS, Runtime.getRuntime().availableProcessors(),
                BenchMachine.codeVersion()));
        lines.add(String.format(Locale.ROOT,
                "warm-up: %d round(s) of every kind of request, the JIT compiling for %s of each"
                        + " round's wall time (rounds end below %.0f%%, at most %d)",
                warmUp.size(), String.join(", ", warmUp),
                100 * WARM_UP_JIT_SHARE, WARM_UP_ROUNDS));
        Phase info1 = measured(lines, "trivial endpoint GET /actuator/info", client, trivial);
        GroupCounts groupsBefore = GroupCounts.now(meters);
        Phase fresh = measured(lines, "new pushes (distinct bodies)", client, i -> push(files, "new", i));
        waitForThePipeline();
        lines.add("  the new pushes' jobs: " + GroupCounts.now(meters).since(groupsBefore, fresh.requests));
        long keyed = Math.min(fresh.requests, DUPLICATES);
        Phase dup = measured(lines, "duplicate pushes (" + keyed + " distinct keyed bodies)", client,
                i -> push(files, "new", i % keyed));
        // side by side: the same pushes without the idempotent consumer, and with Camel's stock repository. With
        // the pipeline on, a faster intake only puts off the pipeline's work past the end of its phase, so these
        // run with the stage workers suspended (intake alone, ours measured again alike), then resumed
        waitForThePipeline();
        List<String> workers = camelContext.getRoutes().stream().map(org.apache.camel.Route::getRouteId)
                .filter(id -> id.matches("(validation|processing)-\\d+")).toList();
        for (String worker : workers) {
            camelContext.getRouteController().suspendRoute(worker);
        }
        lines.add("side by side, intake alone (stage workers " + workers + " suspended):");
        Phase oursNew = measured(lines, "new pushes, shipped route", client, i -> push(files, "ours", i), false);
        Phase plainNew = measured(lines, "new pushes, no idempotent consumer", client, i -> push(plain, "plain", i),
                false);
        Phase stockNew = measured(lines, "new pushes, stock JdbcMessageIdRepository", client,
                i -> push(stock, "stock", i), false);
        long stockKeyed = Math.min(stockNew.requests, DUPLICATES);
        Phase stockDup = measured(lines, "duplicate pushes, stock JdbcMessageIdRepository", client,
                i -> push(stock, "stock", i % stockKeyed), false);
        long oursKeyed = Math.min(oursNew.requests, DUPLICATES);
        Phase oursDup = measured(lines, "duplicate pushes, shipped route", client,
                i -> push(files, "ours", i % oursKeyed), false);

        MachineStats before = MachineStats.now();
        double inserts = MachineLimits.commitsPerSecond(dataSource);
        double fsyncs = MachineLimits.fsyncsPerSecond(WORK.resolve("data"));
        double sha = MachineLimits.sha256MegabytesPerSecond();
        lines.add(String.format(Locale.ROOT,
                "machine: PostgreSQL single-row INSERT commits/s (synchronous_commit=on) %.0f;"
                        + " 4 KiB write+fsync/s in the data folder %.0f; SHA-256 %.0f MB/s (= %.0f 4 KiB bodies/s on one core)",
                inserts, fsyncs, sha, sha * 1e6 / BODY_SIZE));
        lines.add("  during the machine limits: " + MachineStats.between(before, MachineStats.now()));
        lines.add(String.format(Locale.ROOT,
                "ratios to the trivial endpoint: new %.2fx, duplicate %.2fx (per CPU-second: new %.2fx,"
                        + " duplicate %.2fx)",
                fresh.rps / info1.rps, dup.rps / info1.rps, fresh.perCpuSecond / info1.perCpuSecond,
                dup.perCpuSecond / info1.perCpuSecond));
        lines.add(String.format(Locale.ROOT,
                "ratios to the machine: new pushes / INSERT commits %.2f, new pushes / fsyncs %.2f,"
                        + " duplicate bytes / SHA-256 %.3f",
                fresh.rps / inserts, fresh.rps / fsyncs, dup.rps * BODY_SIZE / 1e6 / sha));
        lines.add(String.format(Locale.ROOT, "side by side, intake alone: new pushes %.2fx those without the idempotent"
                + " consumer (idempotency costs %.0f%%), %.2fx those with the stock repository; duplicates %.2fx the stock"
                + " repository's (per CPU-second: %.2fx, %.2fx, %.2fx)", oursNew.rps / plainNew.rps,
                100 * (1 - oursNew.rps / plainNew.rps), oursNew.rps / stockNew.rps, oursDup.rps / stockDup.rps,
                oursNew.perCpuSecond / plainNew.perCpuSecond, oursNew.perCpuSecond / stockNew.perCpuSecond,
                oursDup.perCpuSecond / stockDup.perCpuSecond));
        lines.add(String.format(Locale.ROOT, "jobs %d, content keys %d, stock repository rows %d",
                jdbc.queryForObject("SELECT count(*) FROM import_job", Long.class),
                jdbc.queryForObject("SELECT count(*) FROM content_key", Long.class),
                jdbc.queryForObject("SELECT count(*) FROM CAMEL_MESSAGEPROCESSED", Long.class)));
        // measured with the workers still suspended: resumed, they would work off the side-by-side jobs meanwhile
        for (String worker : workers) {
            camelContext.getRouteController().resumeRoute(worker);
        }
        String out = "\n" + String.join("\n", lines) + "\n";
        System.out.println(out);
        Path report = Path.of(System.getProperty("basedir", ".")).resolve("target/benchmarks/http.txt");
        Files.createDirectories(report.getParent());
        Files.writeString(report, out);
        // what was timed did happen, and every answer was a success
        assertThat(fresh.requests).isPositive();
        assertThat(dup.requests).isPositive();
        assertThat(info1.errors + fresh.errors + dup.errors + oursNew.errors + plainNew.errors + stockNew.errors
                + stockDup.errors
                + oursDup.errors).isZero();
    }

    /**
     * The file push twice more, on paths of their own behind the same front door and caller check: once without
     * the idempotent consumer (every push a new job), once with Camel's stock {@code JdbcMessageIdRepository}
     * in place of ours. Both call the same beans as intake, inline (no shared intake route, no arrival counter,
     * no log line), and neither has the repeated-push fast path: what they show is the idempotent consumer's own
     * cost, and what the shipped route's duplicate path gains over a stock one.
     */
    private void addComparisonRoutes() throws Exception {
        JdbcMessageIdRepository stock = new JdbcMessageIdRepository(dataSource, "bench");
        camelContext.getRegistry().bind("stockMessageIdRepository", stock);
        camelContext.addService(stock, true, true);
        camelContext.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                rest("/api/v1/bench")
                        .post("/suppliers/{supplier}/files-without-idempotent-consumer").to("direct:bench-plain")
                        .post("/suppliers/{supplier}/files-with-stock-repository").to("direct:bench-stock");
                from("direct:bench-plain").routeId("bench-plain").routeConfigurationId("api-errors,api-caller")
                        .bean("filePushApi", "accept")
                        .bean("intakeGate", "check")
                        .bean("rawStore", "receiveBody")
                        .policy("transactionPolicy")
                        .bean("rawStore", "place")
                        .bean("jobRegistration", "create")
                        .end()
                        .bean("rawStore", "discard")
                        .bean("filePushApi", "reply");
                from("direct:bench-stock").routeId("bench-stock").routeConfigurationId("api-errors,api-caller")
                        .bean("filePushApi", "accept")
                        .bean("intakeGate", "check")
                        .bean("rawStore", "receiveBody")
                        .policy("transactionPolicy")
                        .bean("contentKeyLock", "lock")
                        .bean("rawStore", "place")
                        .idempotentConsumer(header("IngestorKey")).idempotentRepository(stock)
                        .skipDuplicate(false).removeOnFailure(false)
                        .choice()
                        .when(exchangeProperty(Exchange.DUPLICATE_MESSAGE).isEqualTo(true))
                        .bean("jobRegistration", "recordDuplicate")
                        .otherwise()
                        .bean("jobRegistration", "create")
                        .end()
                        .end()
                        .end()
                        .bean("rawStore", "discard")
                        .bean("filePushApi", "reply");
            }
        });
    }

    private static HttpRequest push(URI files, String prefix, long i) {
        String head = "source_id,sku,quantity,delivery_date\n" + prefix + "-" + i + ",SKU,1,2026-12-01\n";
        byte[] body = Arrays.copyOf(head.getBytes(StandardCharsets.UTF_8), BODY_SIZE);
        Arrays.fill(body, head.length(), BODY_SIZE, (byte) 'x');
        return HttpRequest.newBuilder(files).header("X-Api-Key", "acme-demo-key")
                .header("Content-Type", "application/octet-stream")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
    }

    private Phase measured(List<String> lines, String name, HttpClient client, LongFunction<HttpRequest> requests)
            throws Exception {
        return measured(lines, name, client, requests, true);
    }

    /**
     * Each phase of the pipeline-on part starts with the pipeline idle: the jobs of the one before are through their
     * stages.
     */
    private void waitForThePipeline() throws InterruptedException {
        long settle = System.nanoTime() + 120_000_000_000L;
        while (System.nanoTime() < settle && jdbc.queryForObject(
                "SELECT count(*) FROM import_job WHERE state IN ('RECEIVED', 'VALIDATING', 'PROCESSING')",
                Long.class) > 0) {
            Thread.sleep(200);
        }
    }

    private Phase measured(List<String> lines, String name, HttpClient client, LongFunction<HttpRequest> requests,
            boolean pipeline) throws Exception {
        if (pipeline) {
            waitForThePipeline();
        }
        MachineStats before = MachineStats.now();
        Phase phase = run(client, SECONDS, requests);
        MachineStats after = MachineStats.now();
        // on a shared machine the phases get different shares of it: requests per CPU-second of this JVM (client
        // and server both) and of PostgreSQL say what a request costs, whatever else ran
        double cpuSeconds = (after.jvmCpuNanos - before.jvmCpuNanos) / 1e9
                + (after.postgresTicks - before.postgresTicks) / 100.0;
        Phase measured = new Phase(phase.rps, phase.p50, phase.p99, phase.requests, phase.errors,
                cpuSeconds > 0 ? phase.requests / cpuSeconds : Double.NaN);
        lines.add(String.format(Locale.ROOT,
                "%-52s %8.0f req/s  %7.0f req/CPU-s  p50 %6.2f ms  p99 %7.2f ms  non-2xx %d", name,
                measured.rps, measured.perCpuSecond, measured.p50, measured.p99, measured.errors));
        lines.add("  " + MachineStats.between(before, after));
        return measured;
    }

    /** CONNECTIONS threads, each with one request in flight ({@link ClosedLoop}), until time is up. */
    private static Phase run(HttpClient client, int seconds, LongFunction<HttpRequest> requests) throws Exception {
        ClosedLoop.Run run = ClosedLoop.run(client, CONNECTIONS, seconds, requests,
                response -> System.out.println("non-2xx answer: " + response.statusCode() + " " + response.body()));
        long[] all = run.nanos();
        Arrays.sort(all);
        return new Phase(run.rate(), percentile(all, 0.50), percentile(all, 0.99), all.length, run.errors(),
                Double.NaN);
    }

    private static double percentile(long[] sorted, double p) {
        return sorted.length == 0
                ? Double.NaN
                : sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))] / 1e6;
    }

    private record Phase(double rps, double p50, double p99, long requests, long errors, double perCpuSecond) {
    }

    private static Path work() {
        try {
            return Files.createTempDirectory("ingestor-http-bench-");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
