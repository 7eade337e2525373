package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

import dev.ingestor.support.CapturedLogs;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * Route reload with {@code ingestor.routes-reload=true}: a route file added, changed, and broken while the app
 * runs, in a copy of routes/ of this test's own. A broken file is logged by name and the route it held keeps
 * answering. The context is closed after the class: a second running context would share the inbox and the
 * database with the shared one and take files and jobs that other tests count in theirs.
 */
@org.springframework.test.annotation.DirtiesContext
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "ingestor.routes-dir=target/reload-test-routes", "ingestor.routes-reload=true"})
// slow tier: a context of its own that watches route files
@SlowTest
class RouteReloadTest extends IngestorTestSupport {

    private static final Path ROUTES = copyOfRoutes();
    private static final Path PROBE = ROUTES.resolve("suppliers/RELOADED.camel.yaml");
    /** A folder below routes/ that is neither routes/ nor suppliers/: a backup, a scratch copy. */
    private static final Path OTHER = ROUTES.resolve("other");

    private static Path copyOfRoutes() {
        Path target = Path.of("target/reload-test-routes");
        try {
            if (Files.exists(target)) {
                try (Stream<Path> old = Files.walk(target)) {
                    old.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
            Files.createDirectories(target.resolve("suppliers"));
            // there from the start, as a folder an engineer keeps beside the routes would be
            Files.createDirectories(target.resolve("other"));
            try (Stream<Path> routes = Files.list(Path.of("routes"))) {
                for (Path route : routes.filter(p -> p.toString().endsWith(".camel.yaml")).toList()) {
                    Files.copy(route, target.resolve(route.getFileName()));
                }
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @AfterAll
    static void removeProbe() throws IOException {
        Files.deleteIfExists(PROBE);
        Files.deleteIfExists(OTHER.resolve("STRAY.camel.yaml"));
        Files.deleteIfExists(ROUTES.resolve("ZZ-RELOADED.camel.yaml"));
    }

    private static void writeProbe(String answer) throws IOException {
        writeRoute(PROBE, "reload-probe", answer);
    }

    /** A route file whose route {@code id} answers {@code direct:<id>} with {@code answer}. */
    private static void writeRoute(Path file, String id, String answer) throws IOException {
        Files.writeString(file, """
                - route:
                    id: %s
                    from:
                      uri: direct:%s
                      steps:
                        - setBody:
                            constant: "%s"
                """.formatted(id, id, answer));
    }

    private String probe() {
        return call("reload-probe");
    }

    private String call(String id) {
        try {
            return producer.requestBody("direct:" + id, "", String.class);
        } catch (RuntimeException e) {
            return "no route";
        }
    }

    @Test
    void onlyTheRoutesFolderAndSuppliersAreWatched() throws Exception {
        writeRoute(OTHER.resolve("STRAY.camel.yaml"), "stray-probe", "stray");
        // on purpose: the watch of routes/ would have seen the stray file by now, had it watched other/
        Thread.sleep(1000);
        writeRoute(ROUTES.resolve("ZZ-RELOADED.camel.yaml"), "root-probe", "root");
        await().atMost(Duration.ofSeconds(30)).until(() -> "root".equals(call("root-probe")));
        // on purpose: a watch that saw other/ had its event before routes/'s, and more time to load it
        Thread.sleep(1000);
        assertThat(camelContext.getRoute("stray-probe")).as("a route file in routes/other/").isNull();
        assertThat(call("stray-probe")).isEqualTo("no route");
    }

    @Test
    void aRouteFileAddedChangedAndBrokenWhileTheAppRuns() throws Exception {
        writeProbe("first");
        await().atMost(Duration.ofSeconds(30)).until(() -> "first".equals(probe()));

        writeProbe("second");
        await().atMost(Duration.ofSeconds(30)).until(() -> "second".equals(probe()));

        try (CapturedLogs logs = CapturedLogs.of("org.apache.camel")) {
            Files.writeString(PROBE, "- route:\n    id: reload-probe\n    from: [this is not\n");
            await().atMost(Duration.ofSeconds(30)).until(() -> logs.messages().stream()
                    .anyMatch(
                            m -> m.contains("Error reloading routes from file") && m.contains("RELOADED.camel.yaml")));
            Thread.sleep(1000); // on purpose: a reload that removed the old route would have done so by now
            assertThat(probe()).as("the route of the broken file keeps answering").isEqualTo("second");
            assertThat(camelContext.getRoute("intake")).as("the other routes stay").isNotNull();
            // and those made from templates in Java, which no file would bring back
            assertThat(Stream.of("file-drop-ACME", "validation-1", "processing-1", "outbox-relay-items-1"))
                    .allSatisfy(id -> assertThat(camelContext.getRoute(id)).as(id).isNotNull());
        }
    }
}
