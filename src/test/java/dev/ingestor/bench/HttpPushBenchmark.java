package dev.ingestor.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import dev.ingestor.intake.StoredContent;
import dev.ingestor.job.ImportJobStore;
import dev.ingestor.job.IntakeResult;
import dev.ingestor.job.JobState;
import dev.ingestor.job.RecordCounts;
import dev.ingestor.support.TestKafka;
import dev.ingestor.support.TestPostgres;
import org.apache.camel.Body;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;
import org.apache.camel.test.spring.junit5.CamelSpringBootTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * HTTP file pushes under load from wrk (Debian's package), a second process on 127.0.0.1. In one run:
 * distinct 4 KiB pushes and duplicate pushes through the shipped route (our PostgreSQL idempotent
 * repository), the same route without the idempotent consumer, and the same route with Camel's stock
 * {@code JdbcMessageIdRepository}. Prints requests/s, p50 and p99 for each (the better of two rounds run in turn) and the ratios. Not a test.
 *
 * <p>Run with {@code ./mvnw -B -Pbenchmark test -Dtest=HttpPushBenchmark} (needs {@code wrk} on the PATH:
 * {@code apt-get install wrk}). Knobs: {@code bench.seconds} (20 per phase), {@code bench.rounds} (2), {@code bench.connections} (32),
 * {@code bench.threads} (2), {@code bench.fsync} (true), {@code bench.database} ({@code embedded}, as shipped: the application's own
 * PostgreSQL with fsync and synchronous commits; {@code test}: the test server, fsync off).
 */
@Tag("benchmark")
@CamelSpringBootTest
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class HttpPushBenchmark {

    private static final Path WORK = work();
    private static final int SECONDS = Integer.getInteger("bench.seconds", 20);
    private static final int CONNECTIONS = Integer.getInteger("bench.connections", 32);
    private static final int THREADS = Integer.getInteger("bench.threads", 2);
    private static final String DATABASE = System.getProperty("bench.database", "embedded");
    private static final int ROUNDS = Integer.getInteger("bench.rounds", 2);

    @Autowired
    CamelContext camelContext;
    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    DataSource dataSource;
    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        if (!DATABASE.equals("embedded")) {
            registry.add("spring.datasource.url", () -> TestPostgres.jdbcUrl("bench_http"));
            registry.add("spring.datasource.hikari.connection-init-sql", () -> "SET synchronous_commit = on");
        }
        registry.add("ingestor.kafka.bootstrap-servers", TestKafka::bootstrapServers);
        registry.add("ingestor.data-dir", () -> WORK.resolve("data").toString());
        registry.add("ingestor.inbox-dir", () -> WORK.resolve("inbox").toString());
        // intake alone: validation and processing would compete for the same two cores
        registry.add("ingestor.pipeline.enabled", () -> "false");
        registry.add("logging.level.dev.ingestor.intake", () -> "WARN");
        // only to see what durability costs; the figures to quote are with the shipped default, true
        registry.add("ingestor.intake.fsync", () -> System.getProperty("bench.fsync", "true"));
    }

    @Test
    void pushes() throws Exception {
        addComparisonRoutes();
        Path script = WORK.resolve("push.lua");
        Files.writeString(script, LUA);
        String base = "http://127.0.0.1:" + port;
        String files = base + "/api/v1/suppliers/ACME/files";
        Map<String, Phase> results = new LinkedHashMap<>();
        String plain = base + "/bench/plain/ACME/files";
        String stock = base + "/bench/stock/ACME/files";
        // every route warmed up alike (JIT), then the phases; duplicates re-send the first 500 bodies of each wrk thread
        for (String url : List.of(plain, files, stock)) {
            wrk("warm-up", url, script, "w" + url.hashCode(), 0, Math.max(5, SECONDS / 2));
        }
        // two rounds in turn, each figure the better of its two: the order of phases showed in single runs
        for (int round = 1; round <= ROUNDS; round++) {
            best(results, "ceiling: key check + body read, constant answer", wrk("constant", base + "/bench/constant/ACME/files", script, "c", 0, SECONDS));
            best(results, "new (ours)", wrk("new", files, script, "n" + round, 0, SECONDS));
            best(results, "new (no idempotent consumer)", wrk("plain", plain, script, "p" + round, 0, SECONDS));
            best(results, "new (stock JdbcMessageIdRepository)", wrk("stock new", stock, script, "s" + round, 0, SECONDS));
        }
        for (int round = 1; round <= ROUNDS; round++) {
            best(results, "duplicate (ours)", wrk("duplicate", files, script, "n1", 500, SECONDS));
            best(results, "duplicate (stock JdbcMessageIdRepository)", wrk("stock dup", stock, script, "s1", 500, SECONDS));
        }
        StringBuilder out = new StringBuilder("\nHTTP push benchmark: 4 KiB bodies, wrk -t" + THREADS + " -c" + CONNECTIONS + " -d"
                + SECONDS + "s per phase, database " + DATABASE + ", " + Runtime.getRuntime().availableProcessors() + " cores\n");
        out.append(String.format("%-44s %10s %10s %10s %10s%n", "phase", "req/s", "p50 ms", "p99 ms", "non-2xx"));
        results.forEach((name, p) -> out.append(String.format("%-44s %10.0f %10.2f %10.2f %10d%n", name, p.rps, p.p50, p.p99, p.errors)));
        Phase ours = results.get("new (ours)");
        Phase dup = results.get("duplicate (ours)");
        Phase withoutKey = results.get("new (no idempotent consumer)");
        Phase stockNew = results.get("new (stock JdbcMessageIdRepository)");
        Phase stockDup = results.get("duplicate (stock JdbcMessageIdRepository)");
        out.append(String.format("idempotency cost, new pushes: %.1f%% fewer req/s than without the idempotent consumer%n",
                100 * (1 - ours.rps / withoutKey.rps)));
        out.append(String.format("ours / stock: new %.2fx, duplicate %.2fx%n", ours.rps / stockNew.rps, dup.rps / stockDup.rps));
        out.append(String.format("jobs %d, content keys %d, stock repository rows %d%n",
                jdbc.queryForObject("SELECT count(*) FROM import_job", Long.class),
                jdbc.queryForObject("SELECT count(*) FROM content_key", Long.class),
                jdbc.queryForObject("SELECT count(*) FROM CAMEL_MESSAGEPROCESSED", Long.class)));
        System.out.println(out);
        Path report = Path.of(System.getProperty("basedir", ".")).resolve("target/benchmarks/http.txt");
        Files.createDirectories(report.getParent());
        Files.writeString(report, out.toString());
        // what was timed did happen: the phases answered, and duplicates made no job
        assertThat(ours.requests).isPositive();
        assertThat(dup.errors).isZero();
    }

    /** The file-push route twice more: once without the idempotent consumer, once with Camel's stock repository. */
    private void addComparisonRoutes() throws Exception {
        JdbcMessageIdRepository stock = new JdbcMessageIdRepository(dataSource, "bench");
        camelContext.getRegistry().bind("stockMessageIdRepository", stock);
        camelContext.addService(stock, true, true);
        camelContext.getRegistry().bind("benchJobs", new BenchJobs(camelContext.getRegistry().lookupByNameAndType("importJobStore", ImportJobStore.class)));
        camelContext.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                rest("/bench")
                        .post("/constant/{supplier}/files").to("direct:bench-constant")
                        .post("/plain/{supplier}/files").to("direct:bench-plain")
                        .post("/stock/{supplier}/files").to("direct:bench-stock");
                // the ceiling: the same HTTP stack and key check, the body read, no disk and no database
                from("direct:bench-constant").routeId("bench-constant").routeConfigurationId("api-errors")
                        .bean("apiKeys", "authenticate")
                        .convertBodyTo(byte[].class)
                        .setHeader(Exchange.HTTP_RESPONSE_CODE, constant(200))
                        .setHeader(Exchange.CONTENT_TYPE, constant("application/json"))
                        .setBody(constant("{}"));
                from("direct:bench-plain").routeId("bench-plain").routeConfigurationId("api-errors")
                        .bean("apiKeys", "authenticate")
                        .bean("filePushApi", "accept")
                        .bean("rawStore", "store")
                        .policy("transactionPolicy")
                            .bean("benchJobs", "createWithoutKey")
                        .end()
                        .bean("filePushApi", "reply");
                from("direct:bench-stock").routeId("bench-stock").routeConfigurationId("api-errors")
                        .bean("apiKeys", "authenticate")
                        .bean("filePushApi", "accept")
                        .bean("rawStore", "store")
                        .setHeader("IngestorKey", simple("${body.key}"))
                        .policy("transactionPolicy")
                            .idempotentConsumer(header("IngestorKey")).idempotentRepository(stock)
                                .skipDuplicate(false).removeOnFailure(false)
                                .choice()
                                    .when(exchangeProperty(Exchange.DUPLICATE_MESSAGE).isEqualTo(true))
                                        .bean("importJobStore", "recordDuplicate")
                                    .otherwise()
                                        .bean("importJobStore", "create")
                                .end()
                            .end()
                        .end()
                        .bean("filePushApi", "reply");
            }
        });
    }

    /** A job for every push, as the route would make without a content key to tell repeats apart. */
    public static final class BenchJobs {
        private final ImportJobStore jobs;

        BenchJobs(ImportJobStore jobs) {
            this.jobs = jobs;
        }

        public IntakeResult createWithoutKey(@Body StoredContent content) {
            // request_key set: the unique index on file keys does not apply, so repeats are new jobs
            return new IntakeResult(jobs.createForRequest(ImportJobStore.newId(), content, "bench", ImportJobStore.newId().toString(), "bench",
                    JobState.RECEIVED, RecordCounts.NONE), false);
        }
    }

    private static void best(Map<String, Phase> results, String name, Phase phase) {
        results.merge(name, phase, (a, b) -> a.rps >= b.rps ? a : b);
    }

    private Phase wrk(String name, String url, Path script, String prefix, int cycle, int seconds) throws Exception {
        List<String> command = new ArrayList<>(List.of("wrk", "-t" + THREADS, "-c" + CONNECTIONS, "-d" + seconds + "s",
                "--latency", "-s", script.toString(), url, "--", prefix, String.valueOf(cycle)));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(seconds + 60L, TimeUnit.SECONDS)).isTrue();
        System.out.println("--- " + name + ": " + String.join(" ", command) + "\n" + output);
        return Phase.parse(output);
    }

    private record Phase(double rps, double p50, double p99, long requests, long errors) {
        static Phase parse(String wrk) {
            return new Phase(number(wrk, "Requests/sec:\\s+([\\d.]+)"), millis(wrk, "50%"), millis(wrk, "99%"),
                    (long) number(wrk, "(\\d+) requests in"), (long) number(wrk, "Non-2xx or 3xx responses: (\\d+)"));
        }

        private static double number(String text, String regex) {
            Matcher m = Pattern.compile(regex).matcher(text);
            return m.find() ? Double.parseDouble(m.group(1)) : 0;
        }

        private static double millis(String text, String percentile) {
            Matcher m = Pattern.compile(Pattern.quote(percentile) + "\\s+([\\d.]+)(us|ms|s)").matcher(text);
            if (!m.find()) {
                return Double.NaN;
            }
            double value = Double.parseDouble(m.group(1));
            return switch (m.group(2)) {
                case "us" -> value / 1000;
                case "s" -> value * 1000;
                default -> value;
            };
        }
    }

    /** Bodies of 4 KiB, unique per (prefix, wrk thread, counter); with a cycle, the counter wraps to repeat them. */
    private static final String LUA = """
            local threads = 0
            function setup(thread)
              threads = threads + 1
              thread:set("tid", threads)
            end
            function init(args)
              prefix = args[1]
              cycle = tonumber(args[2])
              counter = 0
              wrk.method = "POST"
              wrk.headers["X-Api-Key"] = "acme-demo-key"
              wrk.headers["Content-Type"] = "application/octet-stream"
            end
            function request()
              counter = counter + 1
              local i = counter
              if cycle > 0 then i = (counter - 1) % cycle + 1 end
              local head = "source_id,sku,quantity,delivery_date\\n" .. prefix .. "-" .. tid .. "-" .. i .. ",SKU,1,2026-12-01\\n"
              return wrk.format(nil, nil, nil, head .. string.rep("x", 4096 - #head))
            end
            """;

    private static Path work() {
        try {
            return Files.createTempDirectory("ingestor-http-bench-");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
