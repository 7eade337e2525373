package dev.ingestor.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.ingestor.support.CapturedLogs;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import org.junit.jupiter.api.Test;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.TestPropertySource;

/**
 * Uploads whose bodies stop arriving, against the running app with a short {@code server.tomcat.connection-timeout}:
 * the answer is a 408 problem naming that setting, never the container's or Spring Boot's own error page, and
 * nothing of the upload is kept.
 */
// its own properties make its own Spring context; closed afterwards, so that no second set of routes keeps polling
// the shared inbox and database while other test classes run
@DirtiesContext
@TestPropertySource(properties = "server.tomcat.connection-timeout=2s")
// slow tier: a context of its own, and every upload waits out the connection timeout
@SlowTest
class StalledUploadTest extends IngestorTestSupport {

    private static final String PUSH = "POST /api/v1/suppliers/ACME/files HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: "
            + ACME_KEY + "\r\nContent-Type: text/csv\r\n";

    @Test
    void aBodyReadAheadThatStopsArrivingIs408NamingTheConnectionTimeout() throws Exception {
        // chunked and gzip bodies are read ahead by the size-limit filter, on the request's own thread
        try (CapturedLogs logs = CapturedLogs.of("org.apache.catalina", "org.springframework.web")) {
            for (String head : List.of(PUSH + "Transfer-Encoding: chunked",
                    PUSH + "Content-Encoding: gzip\r\nContent-Length: 5000")) {
                byte[] start = head.contains("chunked")
                        ? "17\r\nsource_id,sku,quantity\n\r\n".getBytes(StandardCharsets.US_ASCII)
                        : new byte[] {0x1f, (byte) 0x8b, 8, 0, 0, 0};
                try (RawHttp raw = new RawHttp(null, port, Duration.ofSeconds(15))) {
                    assertStoppedArriving(raw.send(head, start).readAnswer(), head);
                }
            }
            assertNoErrorLogged(logs);
        }
        assertThat(jobCount()).isZero();
    }

    @Test
    void aBodyARouteReadsThatStopsArrivingIs408WhenAnswered() throws Exception {
        // a body of declared length is read by the route, on a thread of its own. The route's read and Tomcat's own
        // check of the socket give up at the same moment, and when Tomcat's comes first it closes the connection
        // without an answer (a read failed off its threads): uploads are sent until one is answered
        String answer = "";
        try (CapturedLogs logs = CapturedLogs.of("org.apache.catalina", "org.springframework.web")) {
            for (int i = 0; i < 10 && answer.isEmpty(); i++) {
                String head = PUSH + "X-File-Name: stalled-" + i + ".csv\r\nContent-Length: 5000";
                try (RawHttp raw = new RawHttp(null, port, Duration.ofSeconds(15))) {
                    answer = raw.send(head, "source_id,sku,quantity\n".getBytes(StandardCharsets.US_ASCII))
                            .readAnswer();
                } catch (IOException e) {
                    // reset by the server: no answer
                }
            }
            // the error page answers at once, not after a view of Spring's failed; and when it comes after the answer
            // began, Tomcat's ERROR for it is not logged (web.LateErrorPageLogFilter)
            assertNoErrorLogged(logs);
        }
        assertStoppedArriving(answer, "an upload of declared length");
        assertThat(jobCount()).isZero();
    }

    private static void assertNoErrorLogged(CapturedLogs logs) {
        assertThat(logs.events()).filteredOn(e -> e.getLevel() == Level.ERROR)
                .extracting(ILoggingEvent::getFormattedMessage).isEmpty();
    }

    private static void assertStoppedArriving(String answer, String what) {
        assertThat(answer).as(what).startsWith("HTTP/1.1 408").contains("Content-Type: application/problem+json")
                .contains("\"status\":408").contains("the body stopped arriving")
                .contains("nothing came for 2 s (server.tomcat.connection-timeout)")
                .doesNotContainIgnoringCase("<html").doesNotContainIgnoringCase("whitelabel")
                .doesNotContain("Exception").doesNotContain("\"timestamp\"");
    }
}
