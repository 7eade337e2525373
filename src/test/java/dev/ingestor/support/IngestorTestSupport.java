package dev.ingestor.support;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import java.util.stream.Stream;

import dev.ingestor.source.http.DuplicatePushCounts;
import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.support.ScheduledPollConsumer;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.json.JsonMapper;

/**
 * The whole application on a random port against a real PostgreSQL, with an inbox and data folder of its
 * own. Every test class extending this shares one Spring context (same properties), and each test starts
 * from empty tables and an empty inbox.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
// metrics are exported as in production (Spring Boot's tests switch exporters off by default)
@org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics
public abstract class IngestorTestSupport {

    protected static final Path WORK = createWork();
    protected static final Path INBOX = WORK.resolve("inbox");
    protected static final Path DATA = WORK.resolve("data");

    @Autowired
    protected JdbcTemplate jdbc;
    @Autowired
    protected CamelContext camelContext;
    @Autowired
    protected ProducerTemplate producer;
    @Autowired
    private ObjectProvider<DuplicatePushCounts> duplicatePushCounts;
    @LocalServerPort
    protected int port;

    /**
     * Every table a test may fill; new tables belong here so each test starts empty. Not the counts the database
     * keeps (job_count, dead_letter_count and their deltas): the tables' own truncate triggers empty them. The file
     * names of the search before their jobs (import_job's trigger would empty them too): locked in the order a search
     * locks them, so a search running meanwhile cannot deadlock with the TRUNCATE.
     */
    public static final List<String> TABLES = List.of(
            "job_file_name", "import_job", "content_key", "file_claim", "job_record", "item", "outbox",
            "outbox_published", "outbox_lease", "dead_letter", "http_request", "intake_failure", "item_version",
            "notification", "relay_stall", "raw_file_unlink");

    protected final HttpClient http = HttpClient.newHttpClient();

    /** The webhook every test context notifies (NotificationTest reads what it received). */
    protected static final WebhookReceiver WEBHOOK = new WebhookReceiver();
    protected static final String WEBHOOK_SECRET = "installation-secret";
    protected static final String GLOBEX_WEBHOOK_SECRET = "globex-secret";

    @DynamicPropertySource
    static void ingestorProperties(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", () -> TestPostgres.jdbcUrl("ingestor"));
        registry.add("ingestor.data-dir", DATA::toString);
        registry.add("ingestor.inbox-dir", INBOX::toString);
        registry.add("ingestor.intake.redelivery.maximum-redeliveries", () -> "3");
        registry.add("ingestor.intake.redelivery.delay", () -> "50ms");
        registry.add("ingestor.intake.redelivery.maximum-delay", () -> "200ms");
        registry.add("ingestor.intake.stray-scan-interval", () -> "300ms");
        registry.add("ingestor.intake.unknown-folder-grace", () -> "2s");
        registry.add("ingestor.intake.fsync", () -> "false");
        registry.add("ingestor.kafka.bootstrap-servers", TestKafka::bootstrapServers);
        // a database that went away is noticed in seconds, not Hikari's default 30
        registry.add("spring.datasource.hikari.connection-timeout", () -> "2000");
        registry.add("ingestor.pipeline.poll-interval", () -> "100ms");
        // small, so that PipelineTest can send a file of few records that is still too large to be held
        registry.add("ingestor.pipeline.one-pass-max-size", () -> "64KB");
        // the stages redeliver a different number of times on purpose: a dead letter's attempts show whose
        // policy ran (validation 3 tries, processing 4)
        registry.add("ingestor.pipeline.validation.redelivery.maximum-redeliveries", () -> "2");
        registry.add("ingestor.pipeline.validation.redelivery.delay", () -> "100ms");
        registry.add("ingestor.pipeline.processing.redelivery.maximum-redeliveries", () -> "3");
        registry.add("ingestor.pipeline.processing.redelivery.delay", () -> "100ms");
        registry.add("ingestor.outbox.poll-interval", () -> "100ms");
        // every context has the same webhooks (the receiver of NotificationTest), as every instance of an
        // installation has: the contexts share the database, so any of them may write or send a notification
        registry.add("ingestor.notifications.webhook-url", () -> WEBHOOK.url("/hook"));
        registry.add("ingestor.notifications.secret", () -> WEBHOOK_SECRET);
        registry.add("ingestor.suppliers.GLOBEX.notifications.webhook-url", () -> WEBHOOK.url("/globex"));
        registry.add("ingestor.suppliers.GLOBEX.notifications.secret", () -> GLOBEX_WEBHOOK_SECRET);
        registry.add("ingestor.notifications.poll-interval", () -> "100ms");
        registry.add("ingestor.notifications.relay-check-interval", () -> "100ms");
        registry.add("ingestor.notifications.max-attempts", () -> "3");
        registry.add("ingestor.notifications.delay", () -> "100ms");
        registry.add("ingestor.notifications.maximum-delay", () -> "200ms");
        registry.add("ingestor.notifications.connect-timeout", () -> "1s");
        registry.add("ingestor.notifications.read-timeout", () -> "2s");
        registry.add("ingestor.notifications.relay-stalled-after", () -> "1m");
        // short enough that a test sees the notice a window counted; one notice per kind and window still
        registry.add("ingestor.notifications.coalesce-window", () -> "3s");
        registry.add("ingestor.intake.failure-coalesce-window", () -> "3s");
        // small limits, so the HTTP tests can cross them cheaply; a short in-flight lease for the takeover test
        registry.add("ingestor.http.max-file-size", () -> "1MB");
        registry.add("ingestor.http.max-json-size", () -> "64KB");
        registry.add("ingestor.http.in-flight-lease", () -> "3s");
        // every test client is 127.0.0.1, and many tests send requests without a key on purpose
        registry.add("ingestor.http.limits.failed-auth-per-window", () -> "100000");
        // Prometheus' own token, which reaches /actuator/prometheus only
        registry.add("ingestor.metrics.bearer-token-sha256", () -> dev.ingestor.web.ApiKeys.sha256(METRICS_TOKEN));
        for (String supplier : List.of("ACME", "GLOBEX")) {
            registry.add("ingestor.suppliers." + supplier + ".file-drop.min-age", () -> "400ms");
            registry.add("ingestor.suppliers." + supplier + ".file-drop.poll-interval", () -> "100ms");
        }
        supplierMappings(registry);
    }

    /** Three suppliers with their own file layouts, onboarded by configuration only (files in suppliers/). */
    private static void supplierMappings(DynamicPropertyRegistry registry) {
        // semicolon CSV in Latin-1 with German names, dates and numbers
        String hansa = "ingestor.suppliers.HANSA.";
        registry.add(hansa + "format", () -> "csv");
        registry.add(hansa + "csv-delimiter", () -> ";");
        registry.add(hansa + "charset", () -> "ISO-8859-1");
        registry.add(hansa + "mapping.fields[Artikelnummer]", () -> "sku");
        registry.add(hansa + "mapping.fields[Menge]", () -> "quantity");
        registry.add(hansa + "mapping.fields[Liefertermin]", () -> "delivery_date");
        registry.add(hansa + "mapping.fields[Position]", () -> "source_id");
        registry.add(hansa + "mapping.fields[Version]", () -> "source_version");
        registry.add(hansa + "mapping.quote", () -> "\"");
        registry.add(hansa + "mapping.date-pattern", () -> "dd.MM.yyyy");
        registry.add(hansa + "mapping.decimal-separator", () -> ",");
        registry.add(hansa + "mapping.grouping-separator", () -> ".");
        registry.add(hansa + "mapping.ignore", () -> "Bearbeiter");
        // one JSON document per order, its lines under order.lines
        String orbit = "ingestor.suppliers.ORBIT.";
        registry.add(orbit + "format", () -> "json");
        registry.add(orbit + "mapping.records-path", () -> "order.lines");
        registry.add(orbit + "mapping.fields[lineNo]", () -> "source_id");
        registry.add(orbit + "mapping.fields[rev]", () -> "source_version");
        registry.add(orbit + "mapping.fields[article]", () -> "sku");
        registry.add(orbit + "mapping.fields[pieces]", () -> "quantity");
        registry.add(orbit + "mapping.fields[due]", () -> "delivery_date");
        // CSV without a header: a title line, comments, columns by position
        String plain = "ingestor.suppliers.PLAIN.";
        registry.add(plain + "format", () -> "csv");
        registry.add(plain + "mapping.header", () -> "false");
        registry.add(plain + "mapping.columns", () -> "source_id,sku,quantity,delivery_date");
        registry.add(plain + "mapping.skip-lines", () -> "1");
        registry.add(plain + "mapping.comment", () -> "#");
        registry.add(plain + "mapping.defaults.quantity", () -> "1");
        registry.add(plain + "mapping.constants.source_version", () -> "1");
        for (String supplier : List.of("HANSA", "ORBIT", "PLAIN")) {
            registry.add("ingestor.suppliers." + supplier + ".file-drop.min-age", () -> "400ms");
            registry.add("ingestor.suppliers." + supplier + ".file-drop.poll-interval", () -> "100ms");
        }
    }

    /**
     * Puts published events matching {@code where} (a condition on the archive's columns) back into the outbox, as
     * a relay that crashed after the send but before it settled leaves them: they are sent again.
     */
    protected int unpublish(String where, Object... args) {
        return jdbc.update("WITH back AS (DELETE FROM outbox_published WHERE " + where
                + " RETURNING id, event_id, topic, event_key, payload, created_at)"
                + " INSERT INTO outbox (id, event_id, topic, event_key, payload, created_at)"
                + " SELECT id, event_id, topic, event_key, payload, created_at FROM back ORDER BY id", args);
    }

    @BeforeEach
    void cleanSlate() throws IOException {
        truncateAll();
        for (Path supplierDir : list(INBOX)) {
            for (Path entry : list(supplierDir)) {
                deleteTree(entry);
            }
        }
    }

    /**
     * TRUNCATE takes exclusive locks table by table while the background workers of the shared context keep
     * polling, so PostgreSQL may pick it as a deadlock victim; it is then simply tried again.
     */
    protected void truncateAll() {
        truncate(String.join(", ", TABLES));
        // the jobs this instance kept as read for repeated pushes are gone with the tables
        duplicatePushCounts.ifAvailable(DuplicatePushCounts::forgetKeptJobs);
    }

    /**
     * {@code TRUNCATE tables}, tried again when PostgreSQL picks it as a deadlock victim (above). The backend that
     * truncates reports it to the table statistics as it goes idle, and a busy one may hold that back for up to
     * 10 s: arriving after a test's own writes, the report would set their counts (n_dead_tup) back to nothing.
     * So it reports at once, on the same connection.
     */
    protected void truncate(String tables) {
        for (int attempt = 1;; attempt++) {
            try {
                jdbc.execute("TRUNCATE " + tables + "; SELECT pg_stat_force_next_flush()");
                return;
            } catch (org.springframework.dao.PessimisticLockingFailureException e) {
                if (attempt == 10) {
                    throw e;
                }
                sleepQuietly(50L * attempt);
            }
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    protected static Path createWork() {
        try {
            return Files.createTempDirectory("ingestor-test-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Suspends a polling route (file drop, SFTP) and waits until a poll that was under way when it was suspended has
     * ended: from then on no poll lists its folder until the route is resumed.
     */
    protected void suspendPolling(String routeId) throws Exception {
        camelContext.getRouteController().suspendRoute(routeId);
        ScheduledPollConsumer consumer = (ScheduledPollConsumer) camelContext.getRoute(routeId).getConsumer();
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20)).until(() -> !consumer.isPolling());
    }

    /** Work of a test that may throw. */
    @FunctionalInterface
    protected interface Work {
        void run() throws Exception;
    }

    /**
     * Does {@code work} with a timer route of the app (housekeeping, notification retention) stopped, so that it does
     * not act at a moment of its own on rows the test made (housekeeping relays the topics of events waiting that no
     * relay serves); started again afterwards if it ran before.
     */
    protected void withRouteStopped(String routeId, Work work) throws Exception {
        boolean running = camelContext.getRouteController().getRouteStatus(routeId).isStarted();
        camelContext.getRouteController().stopRoute(routeId);
        try {
            work.run();
        } finally {
            if (running) {
                camelContext.getRouteController().startRoute(routeId);
            }
        }
    }

    /** Writes a file elsewhere first and moves it in, as a well-behaved supplier does. */
    protected static Path drop(String supplier, String name, byte[] content) throws IOException {
        Path staging = WORK.resolve("staging");
        Files.createDirectories(staging);
        Path temp = Files.createTempFile(staging, "drop", ".tmp");
        Files.write(temp, content);
        Path target = INBOX.resolve(supplier).resolve(name);
        Files.createDirectories(target.getParent());
        return Files.move(temp, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    protected static List<Path> filesIn(Path dir) throws IOException {
        return list(dir).stream().filter(Files::isRegularFile).toList();
    }

    protected static List<Path> list(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.sorted().toList();
        }
    }

    protected static void deleteTree(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> all = Files.walk(path)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Takes {@code content} in through the shared intake route, as a source would, and answers its job's id. */
    protected java.util.UUID intake(String supplier, String name, String content) {
        dev.ingestor.intake.IntakeResult result = producer.requestBodyAndHeaders("direct:intake",
                content.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                java.util.Map.of(dev.ingestor.intake.IntakeHeaders.SUPPLIER, supplier,
                        dev.ingestor.intake.IntakeHeaders.FILE_NAME,
                        name, dev.ingestor.intake.IntakeHeaders.SOURCE, "test"),
                dev.ingestor.intake.IntakeResult.class);
        return result.job().id();
    }

    /**
     * Every validation ends as a deadlock does (SQLSTATE 40P01, transient, its message "deadlock detected (injected)"
     * and {@code detail}) until the stage's redelivery is spent: a dead letter and a FAILED job. {@code fault} names
     * the trigger and its function; {@link #removeValidationFault} drops them.
     */
    protected void failEveryValidation(String fault, String detail) {
        jdbc.execute("""
                CREATE FUNCTION %s() RETURNS trigger AS $$
                BEGIN RAISE EXCEPTION 'deadlock detected (injected%s)' USING ERRCODE = '40P01'; END
                $$ LANGUAGE plpgsql""".formatted(fault, detail));
        jdbc.execute("CREATE TRIGGER " + fault + " BEFORE UPDATE ON import_job FOR EACH ROW"
                + " WHEN (OLD.state = 'VALIDATING' AND NEW.state NOT IN ('VALIDATING', 'FAILED', 'REJECTED'))"
                + " EXECUTE FUNCTION " + fault + "()");
    }

    protected void removeValidationFault(String fault) {
        jdbc.execute("DROP TRIGGER IF EXISTS " + fault + " ON import_job");
        jdbc.execute("DROP FUNCTION IF EXISTS " + fault + "()");
    }

    /**
     * Keeps the stage workers of {@code instance} off every job until {@link #stopHoldingBackWorkers}: a constraint no
     * lease of theirs meets, so their claims fail and the jobs stay as a test leaves them.
     */
    protected void holdBackWorkersOf(String instance) {
        jdbc.execute("ALTER TABLE import_job ADD CONSTRAINT hold_back CHECK " + notLeasedBy(instance) + " NOT VALID");
    }

    /** Lets the workers held back by {@link #holdBackWorkersOf} claim again. */
    protected void stopHoldingBackWorkers() {
        jdbc.execute("ALTER TABLE import_job DROP CONSTRAINT IF EXISTS hold_back");
    }

    /**
     * A condition true of every job row no worker of {@code instance} leases (a lease is the instance id, a slash and
     * the claim's token): as a {@code CHECK ... NOT VALID} constraint it keeps that instance's workers off the jobs.
     */
    protected static String notLeasedBy(String instance) {
        return "(lease_owner IS NULL OR NOT starts_with(lease_owner, '" + instance + "/'))";
    }

    /** The backend that waits for a lock the backend {@code holder} holds, or null while none does. */
    protected Integer blockedBy(int holder) {
        return jdbc.queryForList("SELECT pid FROM pg_stat_activity WHERE ? = ANY (pg_blocking_pids(pid)) LIMIT 1",
                Integer.class, holder).stream().findFirst().orElse(null);
    }

    /**
     * Deadlocks PostgreSQL detected in the test database so far, once its statistics have caught up: a backend sends
     * them at the end of its transaction and they are gathered about every half second.
     */
    protected long deadlocksSoFar() {
        // a fixed wait on purpose: nothing shows that the statistics have caught up, and the count asked for may be
        // the same before and after
        sleepQuietly(1_500);
        jdbc.execute("SELECT pg_stat_clear_snapshot()");
        return jdbc.queryForObject("SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()",
                Long.class);
    }

    protected long jobCount() {
        return jdbc.queryForObject("SELECT count(*) FROM import_job", Long.class);
    }

    protected long keyCount() {
        return jdbc.queryForObject("SELECT count(*) FROM content_key", Long.class);
    }

    protected void awaitJobs(long expected) {
        await().atMost(Duration.ofSeconds(20)).until(() -> jobCount() == expected);
    }

    protected void awaitFiles(Path dir, int expected) {
        await().atMost(Duration.ofSeconds(20)).until(() -> filesIn(dir).size() == expected);
    }

    /**
     * Runs {@code work} on four threads at once (each given its number, 0 to 3, one transaction per change as the
     * stages make them) while two more run {@code fold} over and over, as two instances' routes would; returns when
     * the four are done, and throws what any of the six threw.
     */
    protected static void whileFolding(IntConsumer work, Runnable fold) throws Exception {
        AtomicBoolean working = new AtomicBoolean(true);
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int worker = t;
                workers.add(pool.submit(() -> work.accept(worker)));
            }
            List<Future<?>> folders = new ArrayList<>();
            for (int f = 0; f < 2; f++) {
                folders.add(pool.submit(() -> {
                    while (working.get()) {
                        fold.run();
                    }
                }));
            }
            try {
                for (Future<?> w : workers) {
                    w.get();
                }
            } finally {
                working.set(false);
            }
            for (Future<?> f : folders) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Folds until {@code deltaTable} is empty (job_count_delta, dead_letter_count_delta): a fold returns at once
     * while the app's own route (job-counts, dead-letter-count) folds, and that fold moves the deltas only when it
     * commits.
     */
    protected void foldUntilNoDeltas(Runnable fold, String deltaTable) {
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            fold.run();
            return jdbc.queryForObject("SELECT count(*) FROM " + deltaTable, Long.class) == 0;
        });
    }

    /** Waits until no job is waiting for or inside validation or processing. */
    protected void awaitSettled() {
        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM import_job WHERE state IN ('RECEIVED', 'VALIDATING', 'PROCESSING')",
                Long.class) == 0);
    }

    /** The demo keys shipped in application.yaml. */
    protected static final String ADMIN_KEY = "admin-demo-key";
    protected static final String ACME_KEY = "acme-demo-key";
    protected static final String GLOBEX_KEY = "globex-demo-key";
    /** Prometheus' token (ingestor.metrics.bearer-token-sha256 holds its hash): /actuator/prometheus only. */
    protected static final String METRICS_TOKEN = "metrics-scrape-token";

    /** GET with the admin key. */
    protected HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return get(path, ADMIN_KEY);
    }

    protected HttpResponse<String> get(String path, String apiKey) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).GET();
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** POST with the given key (null: none), content type (null: none) and extra header pairs. */
    protected HttpResponse<String> post(String path, String apiKey, String contentType, byte[] body, String... headers)
            throws IOException, InterruptedException {
        return http.send(postRequest(path, apiKey, contentType, HttpRequest.BodyPublishers.ofByteArray(body), headers),
                HttpResponse.BodyHandlers.ofString());
    }

    protected HttpRequest postRequest(String path, String apiKey, String contentType, HttpRequest.BodyPublisher body,
            String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).POST(body);
        if (apiKey != null) {
            request.header("X-Api-Key", apiKey);
        }
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        if (headers.length > 0) {
            request.headers(headers);
        }
        return request.build();
    }

    /** An RFC 9457 problem with this status, whose detail names {@code detail}, and no stack trace. */
    protected void assertProblem(HttpResponse<String> response, int status, String detail) throws IOException {
        org.assertj.core.api.Assertions.assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        org.assertj.core.api.Assertions.assertThat(response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(
                        t -> org.assertj.core.api.Assertions.assertThat(t).startsWith("application/problem+json"));
        tools.jackson.databind.JsonNode problem = JSON.readTree(response.body());
        org.assertj.core.api.Assertions.assertThat(problem.get("status").asInt()).isEqualTo(status);
        org.assertj.core.api.Assertions.assertThat(problem.get("title").asString()).isNotBlank();
        org.assertj.core.api.Assertions.assertThat(problem.get("type").asString()).isNotBlank();
        org.assertj.core.api.Assertions.assertThat(problem.get("detail").asString()).contains(detail);
        org.assertj.core.api.Assertions.assertThat(response.body()).doesNotContain("Exception:")
                .doesNotContain("\tat ");
    }

    /** For reading answers in tests. */
    protected static final tools.jackson.databind.ObjectMapper JSON = new JsonMapper();

    protected URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }
}
