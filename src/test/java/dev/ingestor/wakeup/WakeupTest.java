package dev.ingestor.wakeup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;

import dev.ingestor.support.LiveEvents;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestKafka;
import dev.ingestor.support.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.json.JsonMapper;

/**
 * With the stages' polls 30 s apart, a pushed one-record file reaches its event on Kafka within a few seconds:
 * only a notification can have woken validation and processing. Also after the listener's connection was killed,
 * once it is back. A database of its own, so no other test context's workers (woken by the same notifications)
 * take the job.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
// slow tier: a context of its own
@SlowTest
class WakeupTest {

    /** The stages' poll interval here: far longer than any wait a test allows, so only a wakeup explains speed. */
    static final Duration LONG_POLL = Duration.ofSeconds(30);
    /** How soon the event must arrive: well under the poll interval. */
    static final Duration QUICKLY = Duration.ofSeconds(5);
    static final String DATABASE = "ingestor_wakeups";

    private static LiveEvents events;

    @Autowired
    NoticeListener listener;
    @Autowired
    WorkSignals signals;
    @Autowired
    JdbcTemplate jdbc;
    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void longPolls(DynamicPropertyRegistry registry) {
        properties(registry, DATABASE);
        registry.add("ingestor.pipeline.poll-interval", LONG_POLL::toString);
    }

    /** What both tests of wakeups set: a database and folders of their own, the test Kafka. */
    static void properties(DynamicPropertyRegistry registry, String database) {
        Path work = createWork();
        registry.add("spring.datasource.url", () -> TestPostgres.jdbcUrl(database));
        registry.add("ingestor.data-dir", () -> work.resolve("data").toString());
        registry.add("ingestor.inbox-dir", () -> work.resolve("inbox").toString());
        registry.add("ingestor.intake.fsync", () -> "false");
        registry.add("ingestor.kafka.bootstrap-servers", TestKafka::bootstrapServers);
        // the relays poll often here (they are woken as well, which the first test checks by the outbox's signal),
        // so the time measured is the stages'
        registry.add("ingestor.outbox.poll-interval", () -> "50ms");
    }

    @BeforeAll
    static void listen() {
        events = new LiveEvents("ingestor.items");
    }

    @AfterAll
    static void stopListening() throws InterruptedException {
        events.close();
    }

    @Test
    void aPushedFileReachesItsEventWellBeforeTheNextPoll() throws Exception {
        awaitQuietStages();
        // the row that lets the database's triggers notify (V19)
        assertThat(jdbc.queryForObject("SELECT count(*) FROM wakeup_listener WHERE listening_until > now()",
                Long.class)).isEqualTo(1);
        WorkSignals.Signal outbox = signals.signal(WorkChannels.OUTBOX, "ingestor.items");
        long outboxRaises = outbox.raises();

        UUID job = pushOneRecord(port, "wake-1");

        assertThat(events.awaitArrival(job, QUICKLY)).as("the event of job %s within %s", job, QUICKLY).isNotNull();
        // the relay's signal was raised by the outbox rows' notification (what the relay is woken by, once wired)
        assertThat(outbox.raises()).as("notifications of events for ingestor.items").isGreaterThan(outboxRaises);
    }

    @Test
    void theListenerConnectsAgainAfterItsConnectionWasKilledAndWakesAgain() throws Exception {
        awaitQuietStages();
        Integer killed = jdbc.queryForObject("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                + " WHERE datname = ? AND application_name = 'ingestor wakeup listener'", Integer.class, DATABASE);
        assertThat(killed).isEqualTo(1);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).until(() -> !listener.isListening());
        await().atMost(Duration.ofSeconds(20)).until(listener::isListening);
        // the reconnect woke every route once; those polls pass before the push
        Thread.sleep(1000);

        UUID job = pushOneRecord(port, "wake-2");

        assertThat(events.awaitArrival(job, QUICKLY)).as("the event of job %s within %s", job, QUICKLY).isNotNull();
    }

    @Test
    void aNewJobIsToldToTheOtherInstancesAfterItsCommitAndToNoneWhileNoOtherListens() throws Exception {
        awaitQuietStages();
        try (Connection other = DriverManager.getConnection(TestPostgres.jdbcUrl(DATABASE));
                Statement listen = other.createStatement()) {
            listen.execute("LISTEN " + WorkChannels.VALIDATION);

            // only this instance's row: its stages were woken in the JVM, and nothing is sent (a lone instance's
            // notices were transactions flushed to disk, heard by its own listener only)
            pushOneRecord(port, "alone");
            assertThat(notes(other, Duration.ofMillis(1500))).as("notices while no other instance listens").isZero();

            // another instance's listener, as far as the database can tell: its row and its LISTEN
            jdbc.update("INSERT INTO wakeup_listener (instance, listening_until)"
                    + " VALUES ('other-instance', now() + interval '1 minute')");
            pushOneRecord(port, "other");

            // a one-record file is validated and processed in one go: no job waits again, so no trigger notifies
            // this channel; what arrives is WorkNotices' notice, sent after the push's commit
            assertThat(notes(other, Duration.ofSeconds(5))).as("a notice of the new job on %s", WorkChannels.VALIDATION)
                    .isPositive();
        } finally {
            jdbc.update("DELETE FROM wakeup_listener WHERE instance = 'other-instance'");
        }
    }

    /** How many notifications the connection got within {@code wait}; told as soon as some came (0: none came). */
    static int notes(Connection connection, Duration wait) throws Exception {
        PGConnection pg = connection.unwrap(PGConnection.class);
        long end = System.nanoTime() + wait.toNanos();
        while (System.nanoTime() < end) {
            PGNotification[] got = pg.getNotifications(100);
            if (got != null && got.length > 0) {
                return got.length;
            }
        }
        return 0;
    }

    /** The listener listens, and the polls of the start (and of its connect) are over: the next are 30 s away. */
    private void awaitQuietStages() throws InterruptedException {
        await().atMost(Duration.ofSeconds(20)).until(listener::isListening);
        Thread.sleep(1500);
    }

    /** Pushes a new file of one record for ACME; answers its job. */
    static UUID pushOneRecord(int port, String sourceId) throws Exception {
        byte[] body = ("source_id,sku,quantity,delivery_date\n" + sourceId + "-" + UUID.randomUUID()
                + ",SKU,1,2026-12-01\n").getBytes(StandardCharsets.UTF_8);
        HttpRequest push = HttpRequest
                .newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/suppliers/ACME/files"))
                .header("Authorization", "Bearer acme-demo-key").header("Content-Type", "application/octet-stream")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        HttpResponse<String> answer = HttpClient.newHttpClient().send(push, HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);
        return UUID.fromString(JsonMapper.builder().build().readTree(answer.body()).get("id").asString());
    }

    private static Path createWork() {
        try {
            return Files.createTempDirectory("ingestor-wakeups-");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
