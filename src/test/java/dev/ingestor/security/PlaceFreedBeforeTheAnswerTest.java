package dev.ingestor.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import org.junit.jupiter.api.Test;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ContextConfiguration;

/**
 * A key's place among its concurrent requests is free again before its answer can reach the client: with one
 * place per key, a client that sends each request as soon as it has read the previous answer is never refused
 * 429. (Given back after the answer, as it was, a few hundred requests in a row meet their predecessor still
 * counted.) Through the running app, over one kept-alive connection and over a new connection each time, with
 * answers from a route (404 and 200 problem/JSON) and a new file push.
 */
// its own properties make its own Spring context; closed afterwards, so that no second set of routes keeps
// polling the shared inbox and database while other test classes run
@DirtiesContext
@ContextConfiguration(initializers = PlaceFreedBeforeTheAnswerTest.OnePlacePerKey.class)
// slow tier: a context of its own and 600 requests in a row
@SlowTest
class PlaceFreedBeforeTheAnswerTest extends IngestorTestSupport {

    private static final int REQUESTS = 400;

    static class OnePlacePerKey implements ApplicationContextInitializer<ConfigurableApplicationContext> {
        @Override
        public void initialize(ConfigurableApplicationContext context) {
            context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("one-place-per-key", Map.of(
                    "ingestor.http.limits.max-concurrent-per-key", "1",
                    "ingestor.http.limits.requests-per-second", "100000",
                    "ingestor.http.limits.burst", "100000")));
        }
    }

    @Test
    void requestsOneAfterAnotherAreNeverRefused() throws Exception {
        HttpClient keptAlive = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        List<String> refused = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            HttpRequest request = HttpRequest
                    .newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/jobs/" + UUID.randomUUID()))
                    .header("X-Api-Key", ACME_KEY).GET().build();
            HttpResponse<String> answer = keptAlive.send(request, HttpResponse.BodyHandlers.ofString());
            check(answer, 404, "kept-alive GET " + i, refused);
        }
        for (int i = 0; i < REQUESTS / 4; i++) {
            // a new client, so a new connection, each time
            HttpClient fresh = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/jobs?size=1"))
                    .header("X-Api-Key", ACME_KEY).GET().build();
            check(fresh.send(request, HttpResponse.BodyHandlers.ofString()), 200, "new-connection GET " + i, refused);
        }
        for (int i = 0; i < REQUESTS / 4; i++) {
            byte[] body = ("source_id,sku,quantity,delivery_date\nPLACE-" + UUID.randomUUID() + ",SKU-1,1,2026-12-24\n")
                    .getBytes(StandardCharsets.UTF_8);
            HttpRequest push = HttpRequest
                    .newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/suppliers/ACME/files"))
                    .header("X-Api-Key", ACME_KEY).header("Content-Type", "text/csv")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
            check(keptAlive.send(push, HttpResponse.BodyHandlers.ofString()), 202, "push " + i, refused);
        }
        assertThat(refused).as("requests refused although the one before had been answered").isEmpty();
    }

    private static void check(HttpResponse<String> answer, int expected, String which, List<String> refused) {
        if (answer.statusCode() == 429) {
            refused.add(which + ": " + answer.body());
        } else {
            assertThat(answer.statusCode()).as(which + ": " + answer.body()).isEqualTo(expected);
        }
    }
}
