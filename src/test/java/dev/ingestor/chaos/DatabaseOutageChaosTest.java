package dev.ingestor.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.ingestor.config.ProcessingRedelivery;
import dev.ingestor.config.ValidationRedelivery;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestKafka;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.json.JsonMapper;

/**
 * The whole application while its PostgreSQL server goes away twice under load: once stopped (a fast
 * shutdown), once killed (SIGKILL of the postmaster, then crash recovery from the WAL). Pushed files, item
 * batches and dropped files keep coming from clients that retry 503 and 409 after Retry-After, as a partner's
 * client should. The server runs durable, as in production (fsync and synchronous_commit on). Whatever the
 * outage hits (a connect, a statement, a commit), the caller is told to retry, never 500, and in the end every
 * acknowledged file is exactly one job and every item exactly one event.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
// its own database server and folders: closed afterwards, so nothing of it keeps polling while other classes run
@DirtiesContext
// slow tier: a PostgreSQL of its own stopped and killed under load
@SlowTest
class DatabaseOutageChaosTest {

    private static final StoppablePostgres POSTGRES = new StoppablePostgres();
    private static final Path WORK = createWork();
    private static final Path INBOX = WORK.resolve("inbox");
    private static final String ITEMS_TOPIC = "ingestor.items";
    private static final String ACME_KEY = "acme-demo-key";
    private static final tools.jackson.databind.ObjectMapper JSON = new JsonMapper();
    private static final Set<Integer> EXPECTED_STATUSES = Set.of(200, 202, 409, 503);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        POSTGRES.start();
        registry.add("spring.datasource.url", POSTGRES::jdbcUrl);
        registry.add("ingestor.data-dir", () -> WORK.resolve("data").toString());
        registry.add("ingestor.inbox-dir", INBOX::toString);
        registry.add("ingestor.intake.fsync", () -> "false");
        registry.add("ingestor.kafka.bootstrap-servers", TestKafka::bootstrapServers);
        // a stopped database is noticed in seconds, not Hikari's default 30
        registry.add("spring.datasource.hikari.connection-timeout", () -> "2000");
        // redelivery that outlasts an outage of several seconds (0.5 + 1 + 2 + 4 + 4 + 4 + 4 s), for dropped files
        // and for the stages alike. Their own names: a @DynamicPropertySource comes after the start has read the
        // former ingestor.pipeline.redelivery.* (RenamedProperties), which then set nothing here and left the stages
        // at their 60 s delay, longer than this test's waits
        for (String policy : List.of("intake", "pipeline.validation", "pipeline.processing")) {
            registry.add("ingestor." + policy + ".redelivery.maximum-redeliveries", () -> "7");
            registry.add("ingestor." + policy + ".redelivery.delay", () -> "500ms");
            registry.add("ingestor." + policy + ".redelivery.maximum-delay", () -> "4s");
        }
        for (String stage : List.of("validation", "processing")) {
            registry.add("ingestor.pipeline." + stage + ".redelivery.backoff-multiplier", () -> "2");
        }
        registry.add("ingestor.pipeline.poll-interval", () -> "200ms");
        registry.add("ingestor.outbox.poll-interval", () -> "200ms");
        registry.add("ingestor.http.in-flight-lease", () -> "3s");
        registry.add("ingestor.http.retry-after-seconds", () -> "1");
        registry.add("ingestor.suppliers.ACME.file-drop.min-age", () -> "400ms");
        registry.add("ingestor.suppliers.ACME.file-drop.poll-interval", () -> "100ms");
    }

    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    ValidationRedelivery validationRedelivery;
    @Autowired
    ProcessingRedelivery processingRedelivery;
    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String run = "C" + UUID.randomUUID().toString().substring(0, 8);
    private final Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
    private final Set<String> acknowledgedFileKeys = ConcurrentHashMap.newKeySet();
    private final Set<String> acknowledgedBatchKeys = ConcurrentHashMap.newKeySet();
    private final Set<String> acknowledgedSourceIds = ConcurrentHashMap.newKeySet();
    private final Set<String> droppedFileKeys = ConcurrentHashMap.newKeySet();
    private final Set<String> droppedSourceIds = ConcurrentHashMap.newKeySet();
    private final List<String> givenUp = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final AtomicBoolean producing = new AtomicBoolean(true);

    @Test
    // longer than the suite's default: two outages under load, then the drain, on a machine that may be busy
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aDatabaseStoppedOrKilledUnderLoadAnswersNo500AndLosesNothing() throws Exception {
        // what a commit acknowledged before a kill relies on, as production runs it
        assertThat(jdbc.queryForObject("SHOW fsync", String.class)).isEqualTo("on");
        assertThat(jdbc.queryForObject("SHOW synchronous_commit", String.class)).isEqualTo("on");
        // the redelivery set above reached the stages (a former name set here once left them at 60 s)
        assertThat(validationRedelivery.delay()).isEqualTo(Duration.ofMillis(500));
        assertThat(processingRedelivery.delay()).isEqualTo(Duration.ofMillis(500));
        ExecutorService clients = Executors.newFixedThreadPool(6);
        List<Future<?>> running = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            int client = c;
            running.add(clients.submit(() -> pushFiles(client)));
        }
        for (int c = 0; c < 2; c++) {
            int client = c;
            running.add(clients.submit(() -> pushBatches(client)));
        }
        running.add(clients.submit(this::dropFiles));

        // on purpose: the load runs for a while before, between and after the two outages
        Thread.sleep(3_000);
        outage(Duration.ofSeconds(6), POSTGRES::stop);
        Thread.sleep(4_000);
        // killed in the middle of the load: transactions open, commits on their way, no shutdown checkpoint
        outage(Duration.ofSeconds(5), POSTGRES::kill);
        Thread.sleep(3_000);
        producing.set(false);
        for (Future<?> client : running) {
            client.get(120, TimeUnit.SECONDS);
        }
        clients.shutdown();

        org.slf4j.LoggerFactory.getLogger(DatabaseOutageChaosTest.class).info("chaos answers by status {}; acknowledged"
                + " {} files, {} batches; dropped {} files", statuses, acknowledgedFileKeys.size(),
                acknowledgedBatchKeys.size(),
                droppedFileKeys.size());
        assertThat(givenUp).as("logical requests never acknowledged").isEmpty();
        assertThat(statuses.keySet()).as("answers by status %s", statuses).isSubsetOf(EXPECTED_STATUSES);
        assertThat(statuses).as("the outage reached the clients").containsKey(503);
        assertThat(acknowledgedFileKeys).isNotEmpty();
        assertThat(acknowledgedBatchKeys).isNotEmpty();
        assertThat(droppedFileKeys).isNotEmpty();

        // every dropped file taken once and moved to .done, none given up to .failed
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .until(() -> filesIn(INBOX.resolve("ACME/.done")) == droppedFileKeys.size());
        assertThat(filesIn(INBOX.resolve("ACME/.failed"))).isZero();
        assertThat(filesIn(INBOX.resolve("ACME"))).isZero();

        // the pipeline settles: every job finished, every event out of the outbox
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .until(() -> jdbc.queryForObject("SELECT count(*) FROM import_job"
                        + " WHERE state IN ('RECEIVED', 'VALIDATING', 'PROCESSING')", Long.class) == 0
                        && jdbc.queryForObject("SELECT count(*) FROM outbox",
                                Long.class) == 0);

        // one job per acknowledged file, by content key, and no other
        Map<String, Long> fileJobs = countBy(jdbc.queryForList(
                "SELECT key FROM import_job WHERE request_key IS NULL", String.class), Function.identity());
        Set<String> expectedFiles = union(acknowledgedFileKeys, droppedFileKeys);
        assertThat(fileJobs.keySet()).isEqualTo(expectedFiles);
        assertThat(fileJobs.values()).allMatch(n -> n == 1);
        // one job per acknowledged batch, and no other
        Map<String, Long> batchJobs = countBy(jdbc.queryForList(
                "SELECT request_key FROM import_job WHERE request_key IS NOT NULL", String.class), Function.identity());
        assertThat(batchJobs.keySet()).isEqualTo(acknowledgedBatchKeys);
        assertThat(batchJobs.values()).allMatch(n -> n == 1);
        // no job was failed by the outage: each one's records were all applied
        assertThat(jdbc.queryForList("SELECT DISTINCT state FROM import_job", String.class)).containsOnly("COMPLETED");

        // every item of every acknowledged file and batch is exactly one event on Kafka: one event_id per item.
        // The relay delivers at least once (a batch sent but not yet marked published when the database went away
        // is sent again after it), so a delivery may repeat, but always with the same event_id
        String prefix = "ACME:" + run + "-";
        Map<String, Set<String>> eventIds = new java.util.HashMap<>();
        for (ConsumerRecord<String, String> record : TestKafka.readAll(ITEMS_TOPIC, Duration.ofSeconds(3))) {
            if (record.key() != null && record.key().startsWith(prefix)) {
                eventIds.computeIfAbsent(record.key().substring("ACME:".length()), k -> new java.util.HashSet<>())
                        .add(JSON.readTree(record.value()).get("event_id").asString());
            }
        }
        assertThat(eventIds.keySet()).isEqualTo(union(acknowledgedSourceIds, droppedSourceIds));
        assertThat(eventIds).allSatisfy((sourceId, ids) -> assertThat(ids).as(sourceId).hasSize(1));
    }

    /** Stops or kills the server, keeps it down for {@code length}, starts it again on the same port and data. */
    private void outage(Duration length, Runnable takeDown) throws InterruptedException {
        takeDown.run();
        Thread.sleep(length.toMillis()); // on purpose: the outage lasts this long
        POSTGRES.start();
    }

    private void pushFiles(int client) {
        for (int n = 0; producing.get(); n++) {
            String sourceId = run + "-P" + client + "-" + n;
            byte[] content = csv(sourceId);
            int status = untilAcknowledged("file " + sourceId,
                    () -> post("/api/v1/suppliers/ACME/files", "text/csv", content,
                            "X-File-Name", sourceId + ".csv"));
            if (status == 200 || status == 202) {
                acknowledgedFileKeys.add("ACME:" + sha256(content));
                acknowledgedSourceIds.add(sourceId);
            }
        }
    }

    private void pushBatches(int client) {
        for (int n = 0; producing.get(); n++) {
            String key = UUID.randomUUID().toString();
            List<String> ids = new ArrayList<>();
            StringBuilder body = new StringBuilder("{\"items\": [");
            for (int i = 0; i < 5; i++) {
                String sourceId = run + "-B" + client + "-" + n + "-" + i;
                ids.add(sourceId);
                body.append(i == 0 ? "" : ", ").append("{\"source_id\": \"").append(sourceId)
                        .append("\", \"sku\": \"SKU-").append(i).append("\", \"quantity\": ").append(i + 1)
                        .append(", \"delivery_date\": \"2026-12-0").append(i + 1).append("\"}");
            }
            byte[] bytes = body.append("]}").toString().getBytes(StandardCharsets.UTF_8);
            int status = untilAcknowledged("batch " + key,
                    () -> post("/api/v1/suppliers/ACME/items", "application/json", bytes,
                            "Idempotency-Key", key));
            if (status == 200) {
                acknowledgedBatchKeys.add(key);
                acknowledgedSourceIds.addAll(ids);
            }
        }
    }

    /** A supplier dropping files into its inbox the well-behaved way (written elsewhere, moved in). */
    private void dropFiles() {
        try {
            Path staging = Files.createDirectories(WORK.resolve("staging"));
            Path inbox = Files.createDirectories(INBOX.resolve("ACME"));
            for (int n = 0; producing.get(); n++) {
                String sourceId = run + "-D" + n;
                byte[] content = csv(sourceId);
                Path temp = Files.write(staging.resolve(sourceId + ".tmp"), content);
                Files.move(temp, inbox.resolve(sourceId + ".csv"), StandardCopyOption.ATOMIC_MOVE);
                droppedFileKeys.add("ACME:" + sha256(content));
                droppedSourceIds.add(sourceId);
                Thread.sleep(300); // on purpose: a supplier dropping a file every 300 ms
            }
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException("dropping files failed", e);
        }
    }

    /**
     * Sends one logical request until it is acknowledged: 503 and 409 are retried after Retry-After, a lost
     * connection or timeout after a moment; any other status ends it (and is asserted on). Gives up after 60 s.
     */
    private int untilAcknowledged(String what, Request request) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            HttpResponse<String> response;
            try {
                response = request.send();
            } catch (IOException e) {
                sleep(500);
                continue;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            int status = response.statusCode();
            statuses.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
            if (status != 503 && status != 409) {
                if (!EXPECTED_STATUSES.contains(status)) {
                    givenUp.add(what + " answered " + status + ": " + response.body());
                }
                return status;
            }
            long seconds = response.headers().firstValue("Retry-After").map(Long::parseLong).orElse(1L);
            sleep(seconds * 1000);
        }
        givenUp.add(what + " still not acknowledged after 60 s");
        return -1;
    }

    private HttpResponse<String> post(String path, String contentType, byte[] body, String... headers)
            throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30))
                .header("X-Api-Key", ACME_KEY)
                .header("Content-Type", contentType)
                .headers(headers)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @FunctionalInterface
    private interface Request {
        HttpResponse<String> send() throws IOException, InterruptedException;
    }

    private static byte[] csv(String sourceId) {
        return ("source_id,sku,quantity,delivery_date\n" + sourceId + ",SKU-9,3,2026-12-24\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static String sha256(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static <T> Map<String, Long> countBy(List<T> values, Function<T, String> key) {
        return values.stream().collect(Collectors.groupingBy(key, Collectors.counting()));
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        return Stream.concat(a.stream(), b.stream()).collect(Collectors.toSet());
    }

    private static long filesIn(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.filter(Files::isRegularFile).count();
        }
    }

    /** A client's pause before it sends again (after Retry-After, or a moment after a lost connection): on purpose. */
    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static Path createWork() {
        try {
            return Files.createTempDirectory("ingestor-chaos-");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
