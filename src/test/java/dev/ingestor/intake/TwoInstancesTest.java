package dev.ingestor.intake;

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
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import dev.ingestor.IngestorApplication;
import dev.ingestor.outbox.RelayInstaller;
import dev.ingestor.source.http.DuplicatePushCounts;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestKafka;
import dev.ingestor.support.TestPostgres;
import org.apache.camel.CamelContext;
import org.apache.camel.Route;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Two application instances (two Spring and Camel contexts) on one database, polling one shared inbox, as two
 * hosts on a shared volume would. Each file must be taken by exactly one of them, and each content once; and
 * with both relays after one outbox, each event reaches Kafka once and in its item's revision order.
 */
// slow tier: two more application instances
@SlowTest
class TwoInstancesTest {

    private static final String DATABASE = "two_instances";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new JsonMapper();
    private static Path work;
    private static Path inbox;
    private static ConfigurableApplicationContext one;
    private static ConfigurableApplicationContext two;
    private static JdbcTemplate jdbc;

    @BeforeAll
    // two application contexts start here; on a busy machine that alone can take minutes
    @Timeout(value = 10, unit = java.util.concurrent.TimeUnit.MINUTES)
    static void startTwoInstances() throws IOException {
        work = Files.createTempDirectory("ingestor-two-");
        inbox = work.resolve("inbox");
        one = start("one");
        two = start("two");
        jdbc = one.getBean(JdbcTemplate.class);
        recordFileClaims();
    }

    /** Every claim an instance won on a file (file_claim rows come and go; this log keeps them). */
    private static void recordFileClaims() {
        jdbc.execute("CREATE TABLE IF NOT EXISTS claim_log (claim_key text, owner text)");
        jdbc.execute("""
                CREATE OR REPLACE FUNCTION record_file_claim() RETURNS trigger AS $$
                BEGIN
                  INSERT INTO claim_log VALUES (NEW.claim_key, NEW.owner);
                  RETURN NEW;
                END $$ LANGUAGE plpgsql""");
        jdbc.execute("CREATE OR REPLACE TRIGGER record_file_claim AFTER INSERT OR UPDATE ON file_claim"
                + " FOR EACH ROW EXECUTE FUNCTION record_file_claim()");
    }

    @AfterAll
    static void stop() {
        if (one != null) {
            one.close();
        }
        if (two != null) {
            two.close();
        }
    }

    private static ConfigurableApplicationContext start(String name) {
        // command-line arguments: they outrank application.yaml, as on a real host
        return new SpringApplicationBuilder(IngestorApplication.class).run(
                "--server.port=0",
                "--spring.datasource.url=" + TestPostgres.jdbcUrl(DATABASE),
                "--ingestor.instance-id=" + name,
                "--ingestor.inbox-dir=" + inbox,
                "--ingestor.data-dir=" + work.resolve("data-" + name),
                // any instance may process what another took in, so the raw store is shared, like the database
                "--ingestor.raw-dir=" + work.resolve("shared-raw"),
                "--ingestor.pipeline.poll-interval=100ms",
                "--ingestor.intake.fsync=false",
                // small relay rounds, so a backlog takes many of them and the two relays meet on every one
                "--ingestor.outbox.batch-size=20",
                "--ingestor.outbox.poll-interval=100ms",
                "--ingestor.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
                "--ingestor.suppliers.ACME.file-drop.min-age=300ms",
                "--ingestor.suppliers.ACME.file-drop.poll-interval=50ms",
                "--ingestor.suppliers.GLOBEX.file-drop.enabled=false");
    }

    /** Each test starts from empty tables (the instances keep polling meanwhile, so a deadlock is tried again). */
    @BeforeEach
    void emptyTables() throws InterruptedException {
        for (int attempt = 1;; attempt++) {
            try {
                jdbc.execute("TRUNCATE claim_log, " + String.join(", ", IngestorTestSupport.TABLES));
                break;
            } catch (org.springframework.dao.PessimisticLockingFailureException e) {
                if (attempt == 10) {
                    throw e;
                }
                Thread.sleep(50L * attempt);
            }
        }
        for (ConfigurableApplicationContext instance : List.of(one, two)) {
            instance.getBean(DuplicatePushCounts.class).forgetKeptJobs();
        }
    }

    @Test
    void eachFileIsTakenByOneInstanceAndEachContentIsOneJob() throws Exception {
        Path staging = Files.createDirectories(work.resolve("staging"));
        byte[] same = "source_id,sku,quantity,delivery_date\nT-1,SKU-1,1,2026-12-01\n".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 20; i++) {
            Files.write(staging.resolve("same-" + i + ".csv"), same);
        }
        for (int i = 0; i < 10; i++) {
            Files.writeString(staging.resolve("distinct-" + i + ".csv"),
                    "source_id,sku,quantity,delivery_date\nD-" + i + ",SKU-" + i + ",1,2026-12-01\n");
        }
        Path acme = Files.createDirectories(inbox.resolve("ACME"));
        // both instances poll already: a file consumer's first poll comes a second after its route started, and
        // until then the instance started first would have the inbox to itself
        await().atMost(Duration.ofSeconds(30)).until(() -> polling(one) && polling(two));
        // the files arrive one by one, 30 ms apart (not a multiple of the 50 ms polls): each instance finds a file
        // settled min-age after its own first listing of it, so which instance's poll comes first after that varies
        // from file to file, as between hosts sharing a volume; all at once, one poll could take all thirty
        try (Stream<Path> files = Files.list(staging)) {
            for (Path file : files.toList()) {
                Files.setLastModifiedTime(file, FileTime.from(java.time.Instant.now()));
                Files.move(file, acme.resolve(file.getFileName()));
                Thread.sleep(30);
            }
        }

        await().atMost(Duration.ofSeconds(30))
                .until(() -> count(acme.resolve(".done")) + count(acme.resolve(".duplicate")) == 30);
        assertThat(count(acme)).isZero();
        assertThat(count(acme.resolve(".failed"))).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM import_job", Long.class)).isEqualTo(11);
        // had both instances taken one file, the same arrival would be counted twice
        assertThat(jdbc.queryForObject("SELECT sum(duplicate_count) FROM import_job", Long.class)).isEqualTo(19);
        assertThat(count(acme.resolve(".done"))).isEqualTo(11);
        assertThat(count(acme.resolve(".duplicate"))).isEqualTo(19);
        List<String> creators = jdbc.queryForList("SELECT DISTINCT created_by FROM content_key", String.class);
        assertThat(creators).isSubsetOf("one", "two");
        // both instances took files: otherwise one of them did all the work, and nothing here was shared
        assertThat(jdbc.queryForList("SELECT DISTINCT split_part(owner, '/', 1) FROM claim_log", String.class))
                .containsExactlyInAnyOrder("one", "two");
        assertThat(jdbc.queryForObject("SELECT count(DISTINCT claim_key) FROM claim_log", Long.class)).isEqualTo(30);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> jdbc.queryForObject("SELECT count(*) FROM file_claim", Long.class) == 0);
        // and the jobs run to their end, wherever they were taken in
        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM import_job WHERE state = 'COMPLETED'", Long.class) == 11);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item", Long.class)).isEqualTo(11);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_all", Long.class)).isEqualTo(11);
    }

    @Test
    void twoRelaysPublishEveryEventOnceInItsItemsRevisionOrder() throws Exception {
        String run = "R" + UUID.randomUUID().toString().substring(0, 8);
        int items = 20;
        int versions = 10;
        // a backlog built while both relays are held (as while Kafka was away), then both let go at once: they
        // poll the same outbox from the first round on
        for (ConfigurableApplicationContext instance : List.of(one, two)) {
            for (String relay : itemsRelays(instance)) {
                instance.getBean(CamelContext.class).getRouteController().stopRoute(relay);
            }
        }
        try {
            for (int version = 1; version <= versions; version++) {
                StringBuilder batch = new StringBuilder("{\"items\": [");
                for (int i = 0; i < items; i++) {
                    batch.append(i == 0 ? "" : ", ").append("{\"source_id\": \"").append(run).append('-').append(i)
                            .append("\", \"source_version\": ").append(version).append(", \"sku\": \"SKU-").append(i)
                            .append("\", \"quantity\": ").append(version)
                            .append(", \"delivery_date\": \"2026-12-01\"}");
                }
                // the versions alternate between the instances, as a load balancer would send them
                HttpResponse<String> answer = pushItems(version % 2 == 0 ? one : two, batch.append("]}").toString());
                assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            }
            assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox", Long.class))
                    .isEqualTo((long) items * versions);
        } finally {
            for (ConfigurableApplicationContext instance : List.of(one, two)) {
                for (String relay : itemsRelays(instance)) {
                    instance.getBean(CamelContext.class).getRouteController().startRoute(relay);
                }
            }
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM outbox", Long.class) == 0);

        // on Kafka: every event once (by its event_id), and each item's events in revision order 1..versions
        String prefix = "ACME:" + run + "-";
        Map<String, List<Integer>> revisions = new TreeMap<>();
        List<String> eventIds = new ArrayList<>();
        for (ConsumerRecord<String, String> record : TestKafka.readAll("ingestor.items", Duration.ofSeconds(3))) {
            if (record.key() != null && record.key().startsWith(prefix)) {
                JsonNode event = JSON.readTree(record.value());
                revisions.computeIfAbsent(record.key(), k -> new ArrayList<>()).add(event.get("revision").asInt());
                eventIds.add(event.get("event_id").asString());
            }
        }
        assertThat(eventIds).as("events sent more than once").doesNotHaveDuplicates();
        assertThat(eventIds)
                .containsExactlyInAnyOrderElementsOf(jdbc.queryForList("SELECT event_id::text FROM outbox_all"
                        + " WHERE topic = 'ingestor.items' AND event_key LIKE ?", String.class, prefix + "%"));
        List<Integer> inOrder = IntStream.rangeClosed(1, versions).boxed().toList();
        assertThat(revisions).hasSize(items);
        assertThat(revisions).allSatisfy((item, seen) -> assertThat(seen).as(item).isEqualTo(inOrder));
    }

    private static HttpResponse<String> pushItems(ConfigurableApplicationContext instance, String batch)
            throws Exception {
        String port = instance.getEnvironment().getProperty("local.server.port");
        HttpRequest request = HttpRequest
                .newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/suppliers/ACME/items"))
                .header("X-Api-Key", "acme-demo-key")
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", UUID.randomUUID().toString())
                .POST(HttpRequest.BodyPublishers.ofString(batch))
                .build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** The relays of the items topic on an instance (ingestor.outbox.relays of them). */
    private static List<String> itemsRelays(ConfigurableApplicationContext instance) {
        return instance.getBean(CamelContext.class).getRoutes().stream().map(Route::getRouteId)
                .filter(id -> id.startsWith(RelayInstaller.ITEMS_RELAYS)).toList();
    }

    private static boolean polling(ConfigurableApplicationContext instance) {
        Route route = instance.getBean(CamelContext.class).getRoute("file-drop-ACME");
        return route != null && route.getUptimeMillis() > 2000;
    }

    private static long count(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(Files::isRegularFile).count();
        }
    }
}
