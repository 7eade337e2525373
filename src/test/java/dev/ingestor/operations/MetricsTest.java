package dev.ingestor.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import org.junit.jupiter.api.Test;

/**
 * /actuator/prometheus (with Prometheus' own token, as it sends it): Camel's route metrics and ours, moving as files
 * are taken in and processed; the token reaches that endpoint and nothing else.
 */
class MetricsTest extends IngestorTestSupport {

    private String scrape() throws Exception {
        var response = get("/actuator/prometheus", METRICS_TOKEN);
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }

    private static double value(String scrape, String series) {
        Matcher m = Pattern.compile("^" + Pattern.quote(series) + " ([0-9.eE+-]+)$", Pattern.MULTILINE).matcher(scrape);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    @Test
    void countersMoveWhenAFileIsTakenInAndProcessed() throws Exception {
        String done = "ingestor_intake_total{outcome=\"done\",source=\"file-drop\",supplier=\"ACME\"}";
        String duplicate = "ingestor_intake_total{outcome=\"duplicate\",source=\"file-drop\",supplier=\"ACME\"}";
        String accepted = "ingestor_records_total{outcome=\"ACCEPTED\",supplier=\"ACME\"}";
        String quarantined = "ingestor_records_total{outcome=\"QUARANTINED\",supplier=\"ACME\"}";
        String before = scrape();

        byte[] content = ("source_id,sku,quantity,delivery_date\nM-1,SKU,1,2026-12-01\nM-2,SKU,0,2026-12-01\n"
                + System.nanoTime()).getBytes(StandardCharsets.UTF_8);
        drop("ACME", "metrics.csv", content);
        awaitJobs(1);
        drop("ACME", "metrics-again.csv", content);
        awaitFiles(INBOX.resolve("ACME/.duplicate"), 1);
        awaitSettled();

        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            String after = scrape();
            assertThat(value(after, done) - value(before, done)).isEqualTo(1);
            assertThat(value(after, duplicate) - value(before, duplicate)).isEqualTo(1);
            assertThat(value(after, accepted) - value(before, accepted)).isEqualTo(1);
            assertThat(value(after, quarantined) - value(before, quarantined)).isEqualTo(2);
            // from the database, refreshed every few seconds: the job has ended with errors
            assertThat(value(after, "ingestor_jobs{state=\"COMPLETED_WITH_ERRORS\"}")).isEqualTo(1);
            assertThat(after).contains("ingestor_stage_seconds_count{stage=\"processing\",supplier=\"ACME\"}");
            assertThat(after).contains("ingestor_outbox_pending{topic=\"ingestor.items\"}");
            // Camel's own route metrics
            assertThat(after).containsPattern("camel_exchanges_total\\{[^}]*routeId=\"intake\"");
            // Spring's HTTP metrics, without Spring Security's timers around each of its filters (off: their cost)
            assertThat(after).contains("http_server_requests_seconds_count").doesNotContain("spring_security_");
        });
    }

    @Test
    void theMetricsTokenScrapesPrometheusAndReachesNothingElse() throws Exception {
        assertThat(scrape()).contains("jvm_memory_used_bytes");
        // the admin key still scrapes
        assertThat(get("/actuator/prometheus", ADMIN_KEY).statusCode()).isEqualTo(200);
        for (String path : List.of("/actuator/metrics", "/actuator/camelroutes", "/actuator/info", "/actuator",
                "/actuator/health",
                "/api/v1/jobs", "/api/v1/admin/overview", "/api/v1/admin/dead-letters", "/api/v1/nothing-here",
                "/admin/index.html")) {
            HttpResponse<String> answer = get(path, METRICS_TOKEN);
            assertProblem(answer, 403, "ingestor.metrics.bearer-token-sha256) reaches /actuator/prometheus only");
        }
        // refused before its body is read: no job, no stored request
        HttpResponse<String> push = post("/api/v1/suppliers/ACME/files", METRICS_TOKEN, "text/csv",
                "source_id,sku,quantity,delivery_date\nT-1,SKU,1,2026-12-01\n".getBytes(StandardCharsets.UTF_8));
        assertProblem(push, 403, "reaches /actuator/prometheus only");
        assertThat(jobCount()).isZero();
        // the token is no key: the health details stay for the admin key
        assertThat(JSON.readTree(get("/actuator/health", null).body()).has("components")).isFalse();
    }

    // slow tier: the Kafka broker stopped and started
    @SlowTest
    @Test
    void healthCoversTheDatabaseKafkaAndCamel() throws Exception {
        // a file consumer counts as DOWN (not ready) until its first poll, a second after the context starts
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            var components = JSON.readTree(get("/actuator/health", ADMIN_KEY).body()).get("components");
            assertThat(components.get("db").get("status").asString()).isEqualTo("UP");
            assertThat(components.get("kafka").get("status").asString()).isEqualTo("UP");
            assertThat(components.get("camelHealth").get("status").asString())
                    .as(components.get("camelHealth").toString())
                    .isEqualTo("UP");
        });
        dev.ingestor.support.TestKafka.stop();
        try {
            await().atMost(Duration.ofSeconds(15)).until(() -> JSON.readTree(get("/actuator/health", ADMIN_KEY).body())
                    .get("components").get("kafka").get("status").asString().equals("DOWN"));
        } finally {
            dev.ingestor.support.TestKafka.start();
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> JSON.readTree(get("/actuator/health", ADMIN_KEY).body())
                .get("components").get("kafka").get("status").asString().equals("UP"));
    }

    /** camel-micrometer's route policy and route event notifier, as its starter wired them (CamelRouteMetrics). */
    @Test
    void camelsRouteMetricsAreScraped() throws Exception {
        String scrape = scrape();
        assertThat(scrape).containsPattern("(?m)^camel_routes_running_routes\\{[^}]*\\} [1-9][0-9]")
                .containsPattern("(?m)^camel_routes_added_routes\\{[^}]*\\} [1-9][0-9]")
                .containsPattern("camel_exchanges_succeeded_total\\{[^}]*routeId=\"intake\"")
                .containsPattern("camel_route_policy_seconds_count\\{[^}]*eventType=\"context\"");
    }
}
