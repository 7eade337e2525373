package dev.ingestor.embedded;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;

import dev.ingestor.IngestorApplication;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The embedded default run: no datasource configured, PostgreSQL started by the app, data kept on disk. */
class EmbeddedDefaultTest {

    @Test
    void jobsSurviveARestartAndCommitsAreDurable() throws Exception {
        Path work = Files.createTempDirectory("ingestor-embedded-");
        UUID jobId;
        try (ConfigurableApplicationContext app = start(work)) {
            JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
            assertThat(jdbc.queryForObject("SHOW synchronous_commit", String.class)).isEqualTo("on");
            assertThat(jdbc.queryForObject("SHOW fsync", String.class)).isEqualTo("on");
            Path drop = Files.writeString(work.resolve("staged.csv"), "source_id,sku,quantity,delivery_date\nE-1,S,1,2026-12-01\n");
            Files.createDirectories(work.resolve("inbox/ACME"));
            Files.move(drop, work.resolve("inbox/ACME/advice.csv"));
            await().atMost(Duration.ofSeconds(20)).until(() -> jdbc.queryForObject("SELECT count(*) FROM import_job", Long.class) == 1);
            jobId = jdbc.queryForObject("SELECT id FROM import_job", UUID.class);
        }
        try (ConfigurableApplicationContext app = start(work)) {
            JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
            assertThat(jdbc.queryForObject("SELECT id FROM import_job", UUID.class)).isEqualTo(jobId);
        }
    }

    @Test
    void aPostmasterOrphanedByAKilledJvmIsStoppedAndItsDataKept() throws Exception {
        Path data = Files.createTempDirectory("ingestor-orphan-").resolve("postgres");
        Process jvm = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), OrphanMaker.class.getName(), data.toString())
                .redirectErrorStream(true).start();
        try (var out = new java.io.BufferedReader(new java.io.InputStreamReader(jvm.getInputStream()))) {
            String line;
            while ((line = out.readLine()) != null && !line.equals(OrphanMaker.READY)) {
                // start-up chatter
            }
            assertThat(line).isEqualTo(OrphanMaker.READY);
        }
        jvm.destroyForcibly().waitFor();
        long orphanPid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
        assertThat(ProcessHandle.of(orphanPid).map(ProcessHandle::isAlive)).hasValue(true);

        try (EmbeddedPostgres next = EmbeddedPostgresServer.start(data, 0)) {
            assertThat(ProcessHandle.of(orphanPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
            assertThat(new JdbcTemplate(next.getPostgresDatabase())
                    .queryForObject("SELECT count(*) FROM survivor", Long.class)).isZero();
        }
    }

    private static ConfigurableApplicationContext start(Path work) {
        return new SpringApplicationBuilder(IngestorApplication.class).run(
                "--server.port=0",
                "--ingestor.embedded.kafka.port=0",
                "--ingestor.data-dir=" + work.resolve("data"),
                "--ingestor.inbox-dir=" + work.resolve("inbox"),
                "--ingestor.suppliers.ACME.file-drop.min-age=200ms",
                "--ingestor.suppliers.ACME.file-drop.poll-interval=100ms");
    }
}
