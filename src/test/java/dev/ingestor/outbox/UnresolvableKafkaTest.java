package dev.ingestor.outbox;

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

import dev.ingestor.IngestorApplication;
import dev.ingestor.support.CapturedLogs;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestPostgres;
import org.apache.camel.CamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Kafka's host gone from DNS (a broker's container stopped, a headless service with no ready pod) is Kafka being
 * down: the app starts, takes and processes files, keeps their events in the outbox and says so in its health.
 * Kafka's clients refuse to be made while no bootstrap server resolves, so neither the health check nor the relay
 * may make theirs at start, and a relay whose producer cannot be made leaves no half-made one behind.
 */
// slow tier: an application of its own, with a broker that is never there
@SlowTest
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class UnresolvableKafkaTest {

    private static final String DATABASE = "kafka_unresolvable";

    @Test
    void anInstanceWhoseKafkaHostDoesNotResolveStartsTakesWorkAndKeepsTheEvents() throws Exception {
        Path work = Files.createTempDirectory("ingestor-kafka-unresolvable-");
        JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(TestPostgres.jdbcUrl(DATABASE)));
        try (ConfigurableApplicationContext instance = new SpringApplicationBuilder(IngestorApplication.class).run(
                "--server.port=0",
                "--spring.datasource.url=" + TestPostgres.jdbcUrl(DATABASE),
                "--ingestor.instance-id=kafka-unresolvable",
                "--ingestor.inbox-dir=" + work.resolve("inbox"),
                "--ingestor.data-dir=" + work.resolve("data"),
                "--ingestor.intake.fsync=false",
                // .invalid never resolves (RFC 2606)
                "--ingestor.kafka.bootstrap-servers=kafka.invalid:9092",
                "--ingestor.outbox.poll-interval=100ms",
                "--ingestor.outbox.kafka-timeout=2s",
                "--ingestor.outbox.kafka-delivery-timeout=3s",
                "--ingestor.suppliers.ACME.file-drop.enabled=false",
                "--ingestor.suppliers.GLOBEX.file-drop.enabled=false");
                // after the start: Spring's logging set-up replaces the appenders made before
                CapturedLogs relay = CapturedLogs.of("dev.ingestor.outbox", "org.apache.kafka.clients.ClientUtils")) {
            int port = Integer.parseInt(instance.getEnvironment().getProperty("local.server.port"));
            String sourceId = "UNRESOLVED-" + UUID.randomUUID();
            HttpResponse<String> pushed = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    "http://127.0.0.1:" + port + "/api/v1/suppliers/ACME/files"))
                    .header("X-Api-Key", "acme-demo-key").header("Content-Type", "application/octet-stream")
                    .header("X-File-Name", "unresolved.csv")
                    .POST(HttpRequest.BodyPublishers.ofString(
                            "source_id,sku,quantity,delivery_date\n" + sourceId + ",S,1,2026-12-01\n"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(pushed.statusCode()).isEqualTo(202);
            await().atMost(Duration.ofSeconds(60)).until(() -> "COMPLETED".equals(jdbc.queryForObject(
                    "SELECT state FROM import_job WHERE file_name = 'unresolved.csv'", String.class)));
            await().atMost(Duration.ofSeconds(60)).until(() -> relay.messages().stream()
                    .anyMatch(m -> m.contains("no Kafka producer could be made")));

            CamelContext camel = instance.getBean(CamelContext.class);
            int services = camel.hasServices(org.apache.camel.Producer.class).size();
            // each try to make the producer: Kafka's client says it could not resolve the server
            long tries = relay.messages().stream().filter(m -> m.startsWith("Couldn't resolve server")).count();
            await().atMost(Duration.ofSeconds(30)).until(() -> relay.messages().stream()
                    .filter(m -> m.startsWith("Couldn't resolve server")).count() >= tries + 3);
            // a round while no producer can be made waits for its poll, once a producer was tried: no round every
            // poll interval (100 ms here), each reading its slice's events to fail them at once
            long before = relay.messages().stream().filter(m -> m.startsWith("outbox relay for")).count();
            Thread.sleep(6000); // on purpose: rounds would run meanwhile
            long rounds = relay.messages().stream().filter(m -> m.startsWith("outbox relay for")).count() - before;
            assertThat(rounds).as("failed rounds in 6 s, kafka-timeout 2 s").isLessThanOrEqualTo(8);
            assertThat(camel.hasServices(org.apache.camel.Producer.class))
                    .as("services after more rounds without a producer").hasSize(services);
            assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox WHERE event_key = ?", Long.class,
                    "ACME:" + sourceId)).as("the item's event, kept").isEqualTo(1);
            assertThat(instance.getBean("kafka", HealthIndicator.class).health().getStatus()).isEqualTo(Status.DOWN);
        }
    }
}
