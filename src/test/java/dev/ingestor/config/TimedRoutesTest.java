package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.ingestor.source.file.FilePollsThroughErrors;
import dev.ingestor.wakeup.PollsThroughErrors;
import org.apache.camel.builder.AdviceWith;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The routes run on a schedule (notifications, the relay-stall check, housekeeping, the counts' folds, the outbox's
 * vacuum, the file drop's strays and claim renewal) poll on after an {@link Error} reached their poll. Camel's stock
 * scheduler logs such an Error and throws it on, which ends its schedule; the stock timer's {@code java.util.Timer}
 * thread dies of it. Either way the route would do nothing more on that instance while it still shows as started.
 */
class TimedRoutesTest {

    private static final Path ROUTES = Path.of("routes");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** The schedulers of timed routes that poll on after an Error: {@link PollsThroughErrors}, {@code WakeOnNotice}. */
    private static final List<String> POLLING_THROUGH_ERRORS = List.of("#pollsThroughErrors", "#wakeOnNotice");

    /** What the routes' bean steps call, counted by bean and method; every call does nothing. */
    public static final class Stub {

        private final String name;
        private final Map<String, AtomicInteger> calls;

        Stub(String name, Map<String, AtomicInteger> calls) {
            this.name = name;
            this.calls = calls;
        }

        private int called(String method) {
            calls.computeIfAbsent(name + "." + method, k -> new AtomicInteger()).incrementAndGet();
            return 0;
        }

        public int deliverDue() { return called("deliverDue"); }
        public int check() { return called("check"); }
        public int forgetSettled() { return called("forgetSettled"); }
        public int prepare() { return called("prepare"); }
        public int recover() { return called("recover"); }
        public int retain() { return called("retain"); }
        public int dropEmptied() { return called("dropEmptied"); }
        public int relayEarlierTopics() { return called("relayEarlierTopics"); }
        public int fold() { return called("fold"); }
        public int vacuumIfNeeded() { return called("vacuumIfNeeded"); }
        public int sweep() { return called("sweep"); }
        public int renewHeld() { return called("renewHeld"); }
    }

    /** Every interval of {@code RouteTimings} the routes read, short. */
    public static final class ShortTimings {
        public long notificationPollInterval() { return 50; }
        public long relayCheckInterval() { return 50; }
        public long retentionInterval() { return 50; }
        public long outboxVacuumCheckInterval() { return 50; }
        public long strayScanInterval() { return 50; }
        public long claimRenewalInterval() { return 50; }
    }

    private static final List<String> BEANS = List.of("notificationDelivery", "relayStallWatch", "fileNameMonths",
            "housekeeping", "itemHistoryRetention", "relayInstaller", "jobCounts", "deadLetterStore", "outboxVacuum",
            "strayFileSweeper", "fileClaimRepository");

    /** The route of {@code file}, whose first run fails with an Error: its first step is called on a later run. */
    @ParameterizedTest(name = "{1}")
    @CsvSource({
            "notifications.camel.yaml, notification-delivery, notificationDelivery.deliverDue",
            "notifications.camel.yaml, relay-stall-check, relayStallWatch.check",
            "notifications.camel.yaml, notification-retention, notificationDelivery.forgetSettled",
            "housekeeping.camel.yaml, housekeeping, fileNameMonths.prepare",
            "job-counts.camel.yaml, job-counts, jobCounts.fold",
            "dead-letter-count.camel.yaml, dead-letter-count, deadLetterStore.fold",
            "outbox-relay.camel.yaml, outbox-vacuum, outboxVacuum.vacuumIfNeeded",
            "source-file-drop.camel.yaml, file-drop-strays, strayFileSweeper.sweep",
            "source-file-drop.camel.yaml, file-claim-renewal, fileClaimRepository.renewHeld",
    })
    void aTimedRouteRunsAgainAfterAnErrorReachedItsPoll(String file, String routeId, String firstStep)
            throws Exception {
        Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
        AtomicInteger errors = new AtomicInteger();
        try (DefaultCamelContext camel = failing(file, routeId, calls, () -> errors.getAndIncrement() == 0)) {
            // the timer's thread dies of the Error: the test asks whether the route ran again, not how it did not
            await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(10)).alias(routeId + " runs again")
                    .until(() -> calls.containsKey(firstStep));
            assertThat(errors.get()).as("runs").isGreaterThan(1);
            assertThat(camel.getRouteController().getRouteStatus(routeId).isStarted()).isTrue();
        }
    }

    /**
     * A timed route keeps its own pace through Errors in a row: claim renewal runs every third of the claims' lease,
     * and skipped turns (the file sources' back-off after Errors, up to 15 turns) would let this instance's claims
     * lapse while it still reads their files, and another instance take them. Every run fails here; at 50 ms a turn,
     * runs at every turn are about one a turn, where the back-off allows 8 in the first 32 turns and one per 16 after.
     */
    @Test
    void claimRenewalKeepsItsPaceThroughErrorsInARow() throws Exception {
        Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
        AtomicInteger runs = new AtomicInteger();
        long started = System.nanoTime();
        try (DefaultCamelContext camel = failing("source-file-drop.camel.yaml", "file-claim-renewal", calls,
                () -> runs.incrementAndGet() > 0)) {
            Thread.sleep(2_000);
            long turns = (System.nanoTime() - started) / 50_000_000;
            assertThat(runs.get()).as("runs in %d turns", turns).isGreaterThan(8 + (int) (turns / 16) + 4);
        }
    }

    /**
     * The route {@code routeId} of {@code file} as it is, started, its bean steps stubbed and its intervals short, each
     * run failing with an Error before its first step while {@code fails} says so, as a stack overflow or memory run
     * out in one of Camel's own steps would (an Error a bean step throws is the exchange's failure, and never reaches
     * the poll).
     */
    private static DefaultCamelContext failing(String file, String routeId, Map<String, AtomicInteger> calls,
            java.util.function.BooleanSupplier fails) throws Exception {
        DefaultCamelContext camel = new DefaultCamelContext();
        // the exchange the Error abandoned stays in flight: a graceful stop would wait for it
        camel.getShutdownStrategy().setTimeout(1);
        BEANS.forEach(name -> camel.getRegistry().bind(name, new Stub(name, calls)));
        camel.getRegistry().bind("routeTimings", new ShortTimings());
        // a prototype, as in the app: one per route
        camel.getRegistry().bindAsPrototype("pollsThroughErrors", PollsThroughErrors.class, PollsThroughErrors::new);
        load(camel, "error-handling.camel.yaml");
        load(camel, file);
        for (String other : camel.getRouteDefinitions().stream().map(r -> r.getRouteId())
                .filter(id -> !id.equals(routeId)).toList()) {
            camel.removeRouteDefinition(camel.getRouteDefinition(other));
        }
        AdviceWith.adviceWith(camel, routeId, route -> {
            // the route's own endpoint and scheduler, without its minutes-long first wait
            route.replaceFromWith(camel.getRouteDefinition(routeId).getInput().getEndpointUri()
                    .replaceAll("(delay|period|initialDelay)=\\d+", "$1=50"));
            route.weaveAddFirst().process(exchange -> {
                if (fails.getAsBoolean()) {
                    throw new StackOverflowError("on purpose, in a step of Camel's");
                }
            });
        });
        camel.start();
        return camel;
    }

    /**
     * Every route run on a schedule, in the route files and the supplier templates, runs on a scheduler that polls on
     * after an Error: none on Camel's timer, whose thread an Error ends, and none on the stock scheduler.
     */
    @Test
    void everyRouteRunOnAScheduleNamesASchedulerThatPollsOnAfterAnError() throws IOException {
        List<String> scheduled = new ArrayList<>();
        for (Path file : routeFiles()) {
            for (JsonNode entry : YAML.readTree(file.toFile())) {
                JsonNode route = entry.has("route") ? entry.get("route") : entry.path("routeTemplate").path("route");
                String uri = route.path("from").path("uri").asText();
                if (uri.isEmpty()) {
                    continue;
                }
                String scheme = uri.substring(0, Math.max(0, uri.indexOf(':')));
                String where = file.getFileName() + ": " + uri;
                assertThat(scheme).as(where).isNotEqualTo("timer");
                String scheduler = route.path("from").path("parameters").path("scheduler").asText();
                if (List.of("file", "sftp").contains(scheme)) {
                    // a route that lists files backs off after Errors, and lets go of what a failed poll listed
                    assertThat(scheduler).as(where).isEqualTo("#" + FilePollsThroughErrors.NAME);
                    scheduled.add(where);
                } else if (scheme.equals("scheduler")) {
                    assertThat(scheduler).as(where).isIn(POLLING_THROUGH_ERRORS);
                    scheduled.add(where);
                }
            }
        }
        assertThat(scheduled).as("routes found on a schedule").hasSizeGreaterThan(10);
    }

    private static List<Path> routeFiles() throws IOException {
        try (Stream<Path> files = Stream.concat(Files.list(ROUTES), Files.list(ROUTES.resolve("suppliers")))) {
            return files.filter(f -> f.getFileName().toString().endsWith(".camel.yaml")).sorted().toList();
        }
    }

    private static void load(DefaultCamelContext camel, String file) throws Exception {
        PluginHelper.getRoutesLoader(camel).loadRoutes(ResourceHelper.resolveMandatoryResource(camel,
                "file:" + ROUTES.resolve(file).toAbsolutePath()));
    }
}
