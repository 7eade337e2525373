package dev.ingestor.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ingestor.IngestorApplication;
import dev.ingestor.support.LiveEvents;
import dev.ingestor.support.TestKafka;
import dev.ingestor.support.TestPostgres;
import dev.ingestor.wakeup.NoticeListener;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The way of a new push of a one-record file to its event on Kafka, at a steady rate (100 pushes/s) under a light
 * load, where the waits between the stages dominate: each push is timed from the moment it is sent to the moment a
 * live Kafka consumer in this JVM receives the job's event. Shipped defaults (embedded PostgreSQL with fsync and
 * synchronous commits, raw files fsynced, poll intervals 500 ms for the stages and 200 ms for the relay). In one run:
 * wakeups off (the listener stopped, the polls alone), then on (the stages and the relays woken), then off again.
 * First a warm-up at the rate (JIT). Each phase: 3 s of pushes not measured, then the measured pushes; then
 * the events still on their way are awaited, and every accepted push must have its event (nothing lost). A push
 * refused (429, the key's concurrent requests, when the machine cannot answer at the rate) is counted and printed.
 * Not a test.
 *
 * <p>{@code ./mvnw -B -Pbenchmark test -Dtest=LatencyBenchmark}. Knobs: {@code bench.rate} (100 pushes/s),
 * {@code bench.seconds} (30 measured per phase), {@code bench.warm-up-seconds} (20, each start).
 */
@Tag("benchmark")
class LatencyBenchmark {

    private static final int RATE = Integer.getInteger("bench.rate", 100);
    private static final int SECONDS = Integer.getInteger("bench.seconds", 30);
    private static final int WARM_UP_SECONDS = Integer.getInteger("bench.warm-up-seconds", 20);
    /** Unmeasured pushes at the start of each phase, so that it is measured in its steady state. */
    private static final int SETTLE_SECONDS = 3;
    private static final Pattern JOB_ID = Pattern.compile("\"id\"\\s*:\\s*\"([0-9a-fA-F-]{36})\"");
    private final BenchReport report = new BenchReport(Path.of("target/benchmarks/latency.txt"));

    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    void pushToEvent() throws Exception {
        report.line("Latency benchmark: new pushes of one-record files, %d/s, %d s measured per phase, %d s of"
                + " warm-up, push sent -> event received by a live Kafka consumer; %d cores, %s; %s; %s",
                RATE,
                SECONDS, WARM_UP_SECONDS, Runtime.getRuntime().availableProcessors(), BenchMachine.cpuModel(),
                BenchMachine.memTotal(), BenchMachine.codeVersion());
        Path work = Files.createTempDirectory("bench-latency-");
        try (LiveEvents events = new LiveEvents("ingestor.items")) {
            try (ConfigurableApplicationContext app = start(work.resolve("committed"), "bench_latency_committed")) {
                NoticeListener listener = app.getBean(NoticeListener.class);
                report.header("routes as committed");
                warmUp(app, events);
                listener.stop();
                phase(app, events, "wakeups off (polls alone)");
                listener.start();
                phase(app, events, "wakeups on (stages and relays woken)");
                // off once more: what the JIT still did during the first phase falls on both modes
                listener.stop();
                phase(app, events, "wakeups off again");
                machineLimits(app, work.resolve("committed").resolve("data"));
            }
        }
        report.line("report: %s", report.file().toAbsolutePath());
    }

    private ConfigurableApplicationContext start(Path work, String database) {
        List<String> args = new ArrayList<>(List.of("--server.port=0",
                "--spring.datasource.url=" + TestPostgres.jdbcUrl(database),
                "--ingestor.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
                "--ingestor.data-dir=" + work.resolve("data"), "--ingestor.inbox-dir=" + work.resolve("inbox"),
                // one INFO line per file and stage would go to the console of the build (as in HttpPushBenchmark)
                "--logging.level.dev.ingestor.intake=WARN", "--logging.level.dev.ingestor.validation=WARN",
                "--logging.level.dev.ingestor.processing=WARN"));
        return new SpringApplicationBuilder(IngestorApplication.class).run(args.toArray(String[]::new));
    }

    /**
     * What the machine itself could do right after, against the same PostgreSQL and data folder: a push needs at
     * least one durable commit and one fsynced file.
     */
    private void machineLimits(ConfigurableApplicationContext app, Path data) throws Exception {
        MachineStats before = MachineStats.now();
        double commits = MachineLimits.commitsPerSecond(app.getBean(javax.sql.DataSource.class));
        double fsyncs = MachineLimits.fsyncsPerSecond(data);
        report.line("machine: PostgreSQL single-row INSERT commits/s (synchronous_commit=on) %.0f; 4 KiB write+fsync/s"
                + " in the data folder %.0f; %s", commits, fsyncs, MachineStats.between(before, MachineStats.now()));
    }

    /** Pushes at the rate, unmeasured, after the start: the JIT compiles the way of a push meanwhile. */
    private void warmUp(ConfigurableApplicationContext app, LiveEvents events) throws Exception {
        MachineStats before = MachineStats.now();
        Sent sent = pushes(HttpClient.newHttpClient(), files(app), events, WARM_UP_SECONDS, "warm-up");
        report.line("warm-up: %d s, %d pushes (%d not accepted); %s", WARM_UP_SECONDS, sent.sent, sent.failed.get(),
                MachineStats.between(before, MachineStats.now()));
    }

    private static URI files(ConfigurableApplicationContext app) {
        int port = ((WebServerApplicationContext) app).getWebServer().getPort();
        return URI.create("http://127.0.0.1:" + port + "/api/v1/suppliers/ACME/files");
    }

    private void phase(ConfigurableApplicationContext app, LiveEvents events, String name) throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        URI files = files(app);
        pushes(client, files, events, SETTLE_SECONDS, name + " settle");
        MachineStats before = MachineStats.now();
        Sent measured = pushes(client, files, events, SECONDS, name);
        String machine = MachineStats.between(before, MachineStats.now());
        long[] latencies = new long[measured.jobs.size()];
        int lost = 0;
        int n = 0;
        for (Push push : measured.jobs) {
            Long arrival = events.awaitArrival(push.job, Duration.ofSeconds(30));
            if (arrival == null) {
                lost++;
            } else {
                latencies[n++] = arrival - push.sentAt;
            }
        }
        long[] ms = Arrays.stream(latencies, 0, n).map(l -> l / 1_000_000).sorted().toArray();
        long[] answers = measured.answerNanos.stream().mapToLong(l -> l / 1_000_000).sorted().toArray();
        report.line(
                "%s: %d pushes (%d not accepted), %d events, %d lost; push -> event ms p50 %d, p90 %d, p99 %d, max %d;"
                        + " push answered ms p50 %d, p99 %d",
                name, measured.sent, measured.failed.get(), n, lost,
                percentile(ms, 50), percentile(ms, 90), percentile(ms, 99), ms.length == 0 ? -1 : ms[ms.length - 1],
                percentile(answers, 50), percentile(answers, 99));
        report.line("  during the measured pushes: %s", machine);
        // a push refused (429: more of the key's requests at once than allowed, on a machine too busy for the
        // rate) was answered so and is counted above; an accepted push must reach its event
        assertThat(lost).as("pushes without their event in " + name).isZero();
    }

    private static long percentile(long[] sorted, int p) {
        if (sorted.length == 0) {
            return -1;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }

    private record Push(UUID job, long sentAt) {
    }

    private record Sent(int sent, List<Push> jobs, List<Long> answerNanos, AtomicLong failed) {
    }

    /** {@code RATE} pushes a second for {@code seconds}, each sent on time whatever the answers before it. */
    private Sent pushes(HttpClient client, URI files, LiveEvents events, int seconds, String prefix)
            throws Exception {
        ConcurrentLinkedQueue<Push> jobs = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Long> answers = new ConcurrentLinkedQueue<>();
        AtomicLong failed = new AtomicLong();
        List<CompletableFuture<?>> inFlight = new ArrayList<>();
        int total = RATE * seconds;
        long period = 1_000_000_000L / RATE;
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
        AtomicLong next = new AtomicLong();
        String run = prefix.replaceAll("[^a-z]+", "-") + "-" + UUID.randomUUID();
        try {
            var tick = ticker.scheduleAtFixedRate(() -> {
                long i = next.getAndIncrement();
                if (i >= total) {
                    return;
                }
                byte[] body = ("source_id,sku,quantity,delivery_date\n" + run + "-" + i + ",SKU,1,2026-12-01\n")
                        .getBytes(StandardCharsets.UTF_8);
                HttpRequest push = HttpRequest.newBuilder(files).header("Authorization", "Bearer acme-demo-key")
                        .header("Content-Type", "application/octet-stream")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
                long sentAt = System.nanoTime();
                CompletableFuture<?> answer = client.sendAsync(push, HttpResponse.BodyHandlers.ofString())
                        .whenComplete((response, error) -> {
                            answers.add(System.nanoTime() - sentAt);
                            Matcher id = response == null ? null : JOB_ID.matcher(response.body());
                            if (error != null || response.statusCode() != 202 || !id.find()) {
                                if (failed.incrementAndGet() <= 3) {
                                    report.line("  push not accepted: %s", error != null
                                            ? error
                                            : response.statusCode() + " " + response.body());
                                }
                            } else {
                                jobs.add(new Push(UUID.fromString(id.group(1)), sentAt));
                            }
                        });
                synchronized (inFlight) {
                    inFlight.add(answer);
                }
            }, 0, period, TimeUnit.NANOSECONDS);
            while (next.get() < total) {
                Thread.sleep(50);
            }
            tick.cancel(false);
        } finally {
            ticker.shutdown();
        }
        synchronized (inFlight) {
            CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).exceptionally(e -> null)
                    .get(60, TimeUnit.SECONDS);
        }
        return new Sent(total, new ArrayList<>(jobs), new ArrayList<>(answers), failed);
    }
}
