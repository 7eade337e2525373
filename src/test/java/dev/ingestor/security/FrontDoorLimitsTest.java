package dev.ingestor.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.InetAddress;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import ch.qos.logback.classic.Level;
import dev.ingestor.config.HttpLimits;
import dev.ingestor.support.CapturedLogs;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ContextConfiguration;

/**
 * The limits of the front door in the running app, with tiny values: 429 + Retry-After for a key over its
 * concurrency or rate, and for an address that failed to authenticate too often (one WARN for it).
 */
// its own properties make its own Spring context; closed afterwards, so that no second set of routes keeps
// polling the shared inbox and database while other test classes run
@DirtiesContext
@ContextConfiguration(initializers = FrontDoorLimitsTest.TinyLimits.class)
// slow tier: a context of its own, waiting out token buckets and request timeouts
@SlowTest
class FrontDoorLimitsTest extends IngestorTestSupport {

    /**
     * The limits as the first property source of this context: the shared test properties raise the
     * failed-authentication limit (every test client is 127.0.0.1), and would win over a dynamic property here.
     */
    static class TinyLimits implements ApplicationContextInitializer<ConfigurableApplicationContext> {
        @Override
        public void initialize(ConfigurableApplicationContext context) {
            context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("tiny-limits", Map.of(
                    "ingestor.http.limits.max-concurrent-per-key", "2",
                    "ingestor.http.limits.requests-per-second", "1",
                    "ingestor.http.limits.burst", "3",
                    "ingestor.http.limits.failed-auth-per-window", "3",
                    "ingestor.http.limits.failed-auth-window", "1m",
                    // a stalled upload outlives its answer within the test
                    "spring.mvc.async.request-timeout", "3s",
                    // a platform on which Spring Boot, left to itself, takes client addresses from X-Forwarded-For
                    "spring.main.cloud-platform", "kubernetes")));
        }
    }

    @Autowired
    HttpLimits limits;

    @Test
    void aKeyWithTooManyRequestsInFlightGets429UntilOneIsAnswered() throws Exception {
        List<RawHttp> held = new ArrayList<>();
        try {
            // two pushes whose bodies never finish arriving: both in flight
            for (int i = 0; i < 2; i++) {
                held.add(new RawHttp(null, port, Duration.ofSeconds(30)).send(
                        "POST /api/v1/suppliers/ACME/files HTTP/1.1\r\nHost: localhost\r\n"
                                + "X-Api-Key: " + ACME_KEY + "\r\nContent-Type: text/csv\r\nContent-Length: 100",
                        "source_id".getBytes()));
            }
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                HttpResponse<String> third = get("/api/v1/jobs", ACME_KEY);
                assertProblem(third, 429, "ingestor.http.limits.max-concurrent-per-key");
                assertThat(third.headers().firstValue("Retry-After")).hasValue("1");
            });
            assertThat(get("/api/v1/jobs", GLOBEX_KEY).statusCode()).as("another key is not held back").isEqualTo(200);
        } finally {
            for (RawHttp raw : held) {
                raw.close();
            }
        }
        // the held requests end with their connections, and their places are free again
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(1100))
                .until(() -> get("/api/v1/jobs", ACME_KEY).statusCode() == 200);
    }

    @Test
    void aTimedOutUploadIsAnswered503ProblemAndKeepsItsPlaceWhileItsRouteStillReads() throws Exception {
        List<RawHttp> held = new ArrayList<>();
        // a full token bucket for ACME (burst 3 at 1 per second), whatever the other tests used of it; a fixed wait on
        // purpose: the bucket fills with time, and any request that looked at it would take a token
        Thread.sleep(3_100);
        try {
            for (int i = 0; i < 2; i++) {
                held.add(new RawHttp(null, port, Duration.ofSeconds(30)).send(
                        "POST /api/v1/suppliers/ACME/files HTTP/1.1\r\nHost: localhost\r\n"
                                + "X-Api-Key: " + ACME_KEY + "\r\nContent-Type: text/csv\r\nContent-Length: 100",
                        "source_id".getBytes()));
            }
            for (RawHttp raw : held) {
                // past spring.mvc.async.request-timeout (3 s here)
                assertThat(raw.readAnswer()).startsWith("HTTP/1.1 503").contains("Retry-After: 5")
                        .contains("application/problem+json").contains("spring.mvc.async.request-timeout")
                        .doesNotContain("about:blank").doesNotContain("Exception");
            }
            // answered, but their routes still wait for the bodies: the key's places are still taken
            assertProblem(get("/api/v1/jobs", ACME_KEY), 429, "ingestor.http.limits.max-concurrent-per-key");
        } finally {
            for (RawHttp raw : held) {
                raw.close();
            }
        }
        await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(1100))
                .until(() -> get("/api/v1/jobs", ACME_KEY).statusCode() == 200);
    }

    @Test
    void aKeyOverItsRateGets429WithRetryAfter() throws Exception {
        HttpResponse<String> refused = null;
        for (int i = 0; i < 10 && refused == null; i++) {
            HttpResponse<String> answer = get("/api/v1/admin/overview", ADMIN_KEY);
            if (answer.statusCode() == 429) {
                refused = answer;
            } else {
                assertThat(answer.statusCode()).isEqualTo(200);
            }
        }
        assertThat(refused).as("the fourth request within a second at the latest").isNotNull();
        assertProblem(refused, 429, "ingestor.http.limits.requests-per-second");
        assertThat(refused.headers().firstValue("Retry-After"))
                .hasValueSatisfying(s -> assertThat(Long.parseLong(s)).isBetween(1L, 2L));
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(500))
                .until(() -> get("/api/v1/admin/overview", ADMIN_KEY).statusCode() == 200);
    }

    @Test
    void anAddressThatFailsTooOftenGets429WithOneWarning() throws Exception {
        assertThat(limits.getFailedAuthPerWindow()).isEqualTo(3);
        // from an address of its own, so that the other tests (from 127.0.0.1) are not refused
        InetAddress guesser = InetAddress.getByName("127.0.0.23");
        try (CapturedLogs logs = CapturedLogs.of("dev.ingestor.http")) {
            List<String> answers = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String key = i % 2 == 0 ? "X-Api-Key: guess-" + i + "\r\n" : "";
                try (RawHttp raw = new RawHttp(guesser, port, Duration.ofSeconds(10))) {
                    answers.add(raw.send("GET /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\n" + key + "Connection: close",
                            new byte[0]).readAnswer());
                }
            }
            assertThat(answers.subList(0, 3)).allSatisfy(a -> assertThat(a).startsWith("HTTP/1.1 401"));
            assertThat(answers.subList(3, 8)).allSatisfy(a -> assertThat(a).startsWith("HTTP/1.1 429")
                    .contains("Retry-After: ").contains("ingestor.http.limits.failed-auth-per-window"));
            // a valid key from the same address (a partner behind the guesser's proxy or NAT) still passes, and
            // does not end the guesser's refusal
            try (RawHttp raw = new RawHttp(guesser, port, Duration.ofSeconds(10))) {
                assertThat(raw.send(
                        "GET /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: " + ACME_KEY
                                + "\r\nConnection: close",
                        new byte[0]).readAnswer()).startsWith("HTTP/1.1 200");
            }
            try (RawHttp raw = new RawHttp(guesser, port, Duration.ofSeconds(10))) {
                assertThat(
                        raw.send("GET /api/v1/jobs HTTP/1.1\r\nHost: x\r\nX-Api-Key: guess-again\r\nConnection: close",
                                new byte[0]).readAnswer())
                        .startsWith("HTTP/1.1 429");
            }
            // the public pages stay reachable, and other addresses are not affected
            try (RawHttp raw = new RawHttp(guesser, port, Duration.ofSeconds(10))) {
                assertThat(raw.send("GET /actuator/health HTTP/1.1\r\nHost: x\r\nConnection: close", new byte[0])
                        .readAnswer())
                        .startsWith("HTTP/1.1 200");
            }
            assertProblem(get("/api/v1/jobs", "wrong"), 401, "not valid");
            assertThat(logs.events().stream().filter(e -> e.getLevel() == Level.WARN
                    && e.getFormattedMessage().contains("authentication failed from 127.0.0.23"))).hasSize(1);
        }
    }

    @Test
    void forwardingHeadersAClientWritesDoNotGiveItAnotherAddressToFailFrom() throws Exception {
        InetAddress guesser = InetAddress.getByName("127.0.0.24");
        List<String> answers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String client = "203.0.113." + (i + 1);
            try (RawHttp raw = new RawHttp(guesser, port, Duration.ofSeconds(10))) {
                answers.add(raw.send(
                        "GET /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: guess-" + i
                                + "\r\nX-Forwarded-For: "
                                + client + "\r\nX-Real-IP: " + client + "\r\nForwarded: for=" + client
                                + "\r\nConnection: close",
                        new byte[0]).readAnswer());
            }
        }
        assertThat(answers.subList(0, 3)).allSatisfy(a -> assertThat(a).startsWith("HTTP/1.1 401"));
        assertThat(answers.subList(3, 8)).allSatisfy(a -> assertThat(a).startsWith("HTTP/1.1 429")
                .contains("ingestor.http.limits.failed-auth-per-window"));
    }
}
