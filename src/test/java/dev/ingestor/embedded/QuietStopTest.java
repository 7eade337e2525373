package dev.ingestor.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.ingestor.IngestorApplication;
import dev.ingestor.support.ChildJvm;
import dev.ingestor.support.FreePorts;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * An orderly stop, as a new user makes it: the app on its embedded defaults in a JVM of its own, one file dropped
 * and taken in, then SIGTERM. The instance hands back the job it holds (waiting for a worker again, no takeover
 * counted) before the embedded servers stop, the whole stop takes seconds, and it logs no WARN or ERROR. The app
 * runs in a separate JVM because the stop is the JVM's own (its shutdown hooks), which no context close in the
 * test JVM makes; the test itself is tagged own-jvm with the other tests that judge every log line.
 */
@Tag("own-jvm")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class QuietStopTest {

    /**
     * A healthy stop: Camel's routes, the workers, the hand-back, the broker and PostgreSQL, with room for a slow
     * machine.
     */
    private static final Duration HEALTHY_STOP = Duration.ofSeconds(15);
    private static final String HEADER = "source_id,sku,quantity,delivery_date\n";

    @Test
    void anOrderlyStopHandsBackTheHeldJobBeforeTheServersStopQuicklyAndQuietly() throws Exception {
        Path work = Files.createTempDirectory("ingestor-quiet-stop-");
        Path data = work.resolve("data");
        Path log = work.resolve("app.log");
        int postgresPort = FreePorts.outsideTheEphemeralRange();
        String instance = "quiet-stop-" + UUID.randomUUID().toString().substring(0, 8);
        UUID held = UUID.randomUUID();
        Process app = ChildJvm.of(IngestorApplication.class).arguments(
                "--server.port=" + FreePorts.outsideTheEphemeralRange(),
                "--ingestor.embedded.kafka.port=0",
                "--ingestor.embedded.postgres.port=" + postgresPort,
                "--ingestor.instance-id=" + instance,
                "--ingestor.data-dir=" + data,
                "--ingestor.inbox-dir=" + work.resolve("inbox"))
                .outputTo(log).start();
        List<String> stopping;
        Duration took;
        try {
            await().atMost(Duration.ofMinutes(3)).until(() -> !app.isAlive()
                    || lines(log).stream().anyMatch(line -> line.contains("Started IngestorApplication")));
            assertThat(app.isAlive()).as("the app started (see %s)", log).isTrue();
            JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(
                    "jdbc:postgresql://127.0.0.1:" + postgresPort
                            + "/" + EmbeddedPostgresServer.APP_DATABASE,
                    EmbeddedPostgresServer.APP_ROLE,
                    PasswordFile
                            .read(EmbeddedPostgresServer.appPasswordFile(data.resolve("postgres").toAbsolutePath()))));

            Path staged = Files.writeString(work.resolve("staged.csv"), HEADER + "Q-1,S,1,2026-12-01\n");
            Files.createDirectories(work.resolve("inbox/ACME"));
            Files.move(staged, work.resolve("inbox/ACME/dropped.csv"));
            await().atMost(Duration.ofMinutes(1)).until(() -> "COMPLETED".equals(jdbc.query(
                    "SELECT state FROM import_job WHERE file_name = 'dropped.csv'",
                    rs -> rs.next() ? rs.getString(1) : null)));
            await().atMost(Duration.ofMinutes(1)).until(() -> jdbc.queryForObject(
                    "SELECT count(*) FROM outbox", Long.class) == 0);
            // a job this instance holds as a worker in the middle of it would: processing, under its lease
            jdbc.update(
                    "INSERT INTO import_job (id, supplier, state, key, file_name, size, source, total, records_done,"
                            + " lease_owner, lease_until, attempts, takeovers) VALUES (?, 'ACME', 'PROCESSING', ?, 'held.csv', 10,"
                            + " 'test', 5, 2, ?, now() + interval '10 minutes', 1, 0)",
                    held, "held-" + held, instance + "/a-claim");

            int before = lines(log).size();
            long signalled = System.nanoTime();
            app.destroy(); // SIGTERM, as a service manager or a container runtime stops the app
            assertThat(app.waitFor(2, TimeUnit.MINUTES)).as("the app stopped").isTrue();
            took = Duration.ofNanos(System.nanoTime() - signalled);
            List<String> all = lines(log);
            stopping = all.subList(Math.min(before, all.size()), all.size());
        } finally {
            app.destroyForcibly();
        }

        assertThat(stopping).as("WARN and ERROR lines of the stop").filteredOn(QuietStopTest::alarming).isEmpty();
        assertThat(took).as("time from SIGTERM to the end of the JVM").isLessThan(HEALTHY_STOP);
        int handedBack = indexOf(stopping, "shutdown of instance " + instance + ": handed back 1 job(s)");
        assertThat(handedBack).as("the hand-back's line").isNotNegative();
        assertThat(indexOf(stopping, "stopping the embedded Kafka broker")).as("the broker stops after the hand-back")
                .isGreaterThan(handedBack);
        assertThat(indexOf(stopping, "shut down postmaster")).as("PostgreSQL stops after the hand-back")
                .isGreaterThan(handedBack);
        try (EmbeddedPostgres postgres = EmbeddedPostgresServer.start(data.resolve("postgres"), 0)) {
            EmbeddedPostgresServer.Login login = EmbeddedPostgresServer.appLogin(postgres, data.resolve("postgres"));
            Map<String, Object> job = new JdbcTemplate(new DriverManagerDataSource(login.jdbcUrl(), login.username(),
                    login.password())).queryForMap("SELECT state, lease_owner, lease_until, takeovers, records_done"
                            + " FROM import_job WHERE id = ?", held);
            // waiting for processing, to resume from its checkpoint at once, and no takeover counted against it
            assertThat(job).containsEntry("state", "PROCESSING").containsEntry("lease_owner", null)
                    .containsEntry("lease_until", null).containsEntry("takeovers", 0).containsEntry("records_done", 2L);
        }
    }

    private static boolean alarming(String line) {
        return line.contains(" WARN ") || line.contains(" ERROR ");
    }

    private static int indexOf(List<String> lines, String text) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i;
            }
        }
        return -1;
    }

    private static List<String> lines(Path log) throws IOException {
        return Files.exists(log) ? List.of(Files.readString(log).split("\n")) : List.of();
    }
}
