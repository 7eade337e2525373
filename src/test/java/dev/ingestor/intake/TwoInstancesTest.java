package dev.ingestor.intake;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import dev.ingestor.IngestorApplication;
import dev.ingestor.support.TestPostgres;
import org.apache.camel.CamelContext;
import org.apache.camel.Route;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two application instances (two Spring and Camel contexts) on one database, polling one shared inbox, as two
 * hosts on a shared volume would. Each file must be taken by exactly one of them, and each content once.
 */
class TwoInstancesTest {

    private static final String DATABASE = "two_instances";
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
                "--ingestor.kafka.bootstrap-servers=" + dev.ingestor.support.TestKafka.bootstrapServers(),
                "--ingestor.suppliers.ACME.file-drop.min-age=300ms",
                "--ingestor.suppliers.ACME.file-drop.poll-interval=50ms",
                "--ingestor.suppliers.GLOBEX.file-drop.enabled=false");
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
        // each file as if just written, dated before it is moved in (a move keeps the time): the instance that
        // claims a file first waits out min-age on it, and the other instance's poll claims the next files
        // meanwhile, as hosts sharing a volume would; with old files one poll could take all thirty at once
        try (Stream<Path> files = Files.list(staging)) {
            for (Path file : files.toList()) {
                Files.setLastModifiedTime(file, FileTime.from(java.time.Instant.now()));
                Files.move(file, acme.resolve(file.getFileName()));
            }
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> count(acme.resolve(".done")) + count(acme.resolve(".duplicate")) == 30);
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
        assertThat(jdbc.queryForList("SELECT DISTINCT owner FROM claim_log", String.class))
                .containsExactlyInAnyOrder("one", "two");
        assertThat(jdbc.queryForObject("SELECT count(DISTINCT claim_key) FROM claim_log", Long.class)).isEqualTo(30);
        await().atMost(Duration.ofSeconds(10)).until(() ->
                jdbc.queryForObject("SELECT count(*) FROM file_claim", Long.class) == 0);
        // and the jobs run to their end, wherever they were taken in
        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM import_job WHERE state = 'COMPLETED'", Long.class) == 11);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item", Long.class)).isEqualTo(11);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox", Long.class)).isEqualTo(11);
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
