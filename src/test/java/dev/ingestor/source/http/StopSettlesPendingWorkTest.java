package dev.ingestor.source.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.ingestor.IngestorApplication;
import dev.ingestor.support.TestKafka;
import dev.ingestor.support.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * An instance stopped (its context closed) with work still pending settles it before its database goes: the
 * claim of a file just done, whose release waits {@code readLockIdempotentReleaseDelay} on Camel's claim-release
 * pool, is released, and a repeated push counted but not yet written is written. The instance has a context and
 * a database of its own, since the test closes it.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class StopSettlesPendingWorkTest {

    private static final String DATABASE = "stop_settles";

    @Test
    void aStopReleasesThePendingClaimAndWritesThePendingCount() throws Exception {
        Path work = Files.createTempDirectory("ingestor-stop-settles-");
        Path inbox = work.resolve("inbox");
        JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(TestPostgres.jdbcUrl(DATABASE)));
        ConfigurableApplicationContext instance = new SpringApplicationBuilder(IngestorApplication.class).run(
                "--server.port=0",
                "--spring.datasource.url=" + TestPostgres.jdbcUrl(DATABASE),
                "--ingestor.instance-id=stop-settles",
                "--ingestor.inbox-dir=" + inbox,
                "--ingestor.data-dir=" + work.resolve("data"),
                "--ingestor.intake.fsync=false",
                "--ingestor.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
                "--ingestor.suppliers.ACME.file-drop.min-age=300ms",
                "--ingestor.suppliers.ACME.file-drop.poll-interval=50ms",
                "--ingestor.suppliers.GLOBEX.file-drop.enabled=false");
        UUID job;
        int repeats = 0;
        try {
            // pushed bytes: intake takes them and makes their key known here, so a repeat is answered from it
            int port = Integer.parseInt(instance.getEnvironment().getProperty("local.server.port"));
            byte[] pushed = csv("PUSHED");
            assertThat(push(port, pushed).statusCode()).isEqualTo(202);
            job = jdbc.queryForObject("SELECT id FROM import_job WHERE file_name = 'pushed.csv'", UUID.class);

            Path staged = Files.write(work.resolve("staged.csv"), csv("DROPPED"));
            Files.createDirectories(inbox.resolve("ACME"));
            Files.move(staged, inbox.resolve("ACME/dropped.csv"));
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> done(inbox));

            // the repeat: counted, written within a second; no transaction, so it takes milliseconds. On a busy machine
            // a batch may write it before the stop: repeats go on until one is seen pending right before the stop
            DuplicatePushCounts counts = instance.getBean(DuplicatePushCounts.class);
            do {
                assertThat(push(port, pushed).statusCode()).isEqualTo(200);
                repeats++;
            } while (counts.pendingOf(job) == 0 && repeats < 20);
            assertThat(repeats).as("repeats until one was seen counted, not written yet").isLessThan(20);
            assertThat(jdbc.queryForObject("SELECT count(*) FROM file_claim", Long.class))
                    .as("the claim of the file just done is held until its release").isEqualTo(1);
        } finally {
            instance.close();
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM file_claim", Long.class)).as("claims left after the stop")
                .isZero();
        assertThat(jdbc.queryForObject("SELECT duplicate_count FROM import_job WHERE id = ?", Integer.class, job))
                .as("the repeated pushes counted on the row").isEqualTo(repeats);
    }

    private static byte[] csv(String id) {
        return ("source_id,sku,quantity,delivery_date\n" + id + "-" + UUID.randomUUID() + ",S,1,2026-12-01\n")
                .getBytes();
    }

    private static HttpResponse<String> push(int port, byte[] content) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/api/v1/suppliers/ACME/files"))
                .header("X-Api-Key", "acme-demo-key").header("Content-Type", "application/octet-stream")
                .header("X-File-Name", "pushed.csv").POST(HttpRequest.BodyPublishers.ofByteArray(content)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static boolean done(Path inbox) throws Exception {
        Path done = inbox.resolve("ACME/.done");
        if (!Files.isDirectory(done)) {
            return false;
        }
        try (Stream<Path> files = Files.list(done)) {
            return files.anyMatch(f -> f.getFileName().toString().endsWith("dropped.csv"));
        }
    }
}
