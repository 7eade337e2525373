package dev.ingestor.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ingestor.IngestorApplication;
import dev.ingestor.support.FreePorts;
import org.apache.camel.CamelContext;
import org.apache.camel.spring.boot.CamelContextConfiguration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A healthy start says nothing alarming: on the embedded default, from an empty data folder and again on the
 * kept one, with health probes arriving all through the start, the only WARN is the demo-key notice. An
 * operator who sees a WARN at start should have something to do. It reads every line the JVM logs, so it runs in a
 * JVM of its own (the own-jvm execution in pom.xml), where no other test's application is running.
 */
@Tag("own-jvm")
@Timeout(value = 10, unit = java.util.concurrent.TimeUnit.MINUTES)
class QuietStartTest {

    @Test
    void aHealthyStartLogsNoWarningButTheDemoKeyNotice() throws Exception {
        Path work = Files.createTempDirectory("ingestor-quiet-");
        for (int run = 1; run <= 2; run++) {
            Start start = start(work);
            assertThat(start.warnings()).as("WARN and ERROR lines of start %d", run).hasSize(1);
            assertThat(start.warnings().get(0)).contains("demo API keys").contains("loopback");
            // a route added to a running context has no status for a moment, and a probe in that moment failed in
            // Camel's route health check (a WARN, seldom): the routes made in Java start with the context
            assertThat(start.routesWhenCamelStarted()).as("routes of start %d when the Camel context started", run)
                    .contains("validation-1", "processing-1", "outbox-relay-items-1", "outbox-relay-dead-letters-1",
                            "file-drop-ACME", "file-drop-GLOBEX");
        }
    }

    /** The WARN and ERROR lines logged while the application started, and the routes it had when Camel started. */
    private record Start(List<String> warnings, List<String> routesWhenCamelStarted) {
    }

    private static Start start(Path work) throws Exception {
        int port = FreePorts.outsideTheEphemeralRange();
        // logback's console appender writes to whatever System.out is at the time of each line
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(new Tee(original, captured), true, StandardCharsets.UTF_8));
        AtomicBoolean starting = new AtomicBoolean(true);
        AtomicInteger probesAnswered = new AtomicInteger();
        Thread prober = new Thread(() -> probeHealth(port, starting, probesAnswered), "health-prober");
        prober.start();
        List<String> routesWhenCamelStarted = new CopyOnWriteArrayList<>();
        CamelContextConfiguration routesRecorder = new CamelContextConfiguration() {
            @Override
            public void beforeApplicationStart(CamelContext camelContext) {
                // the routes are read once the context has started
            }

            @Override
            public void afterApplicationStart(CamelContext camelContext) {
                camelContext.getRoutes().forEach(route -> routesWhenCamelStarted.add(route.getId()));
            }
        };
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(IngestorApplication.class)
                .initializers(context -> context.getBeanFactory().registerSingleton("routesRecorder", routesRecorder))
                .run(
                        "--server.port=" + port,
                        "--ingestor.embedded.kafka.port=0",
                        "--ingestor.data-dir=" + work.resolve("data"),
                        "--ingestor.inbox-dir=" + work.resolve("inbox"))) {
            starting.set(false);
            prober.join();
            System.setOut(original); // the start is what is judged here, not the shutdown
        } finally {
            starting.set(false);
            System.setOut(original);
        }
        assertThat(probesAnswered.get()).as("health probes answered while starting").isPositive();
        return new Start(captured.toString(StandardCharsets.UTF_8).lines()
                .filter(line -> line.contains(" WARN ") || line.contains(" ERROR "))
                .toList(), routesWhenCamelStarted);
    }

    /** Probes health as a load balancer would, from before the port opens until the app has started. */
    private static void probeHealth(int port, AtomicBoolean starting, AtomicInteger answered) {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(200)).build();
        HttpRequest probe = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health"))
                .timeout(Duration.ofSeconds(2)).build();
        while (starting.get()) {
            try {
                client.send(probe, HttpResponse.BodyHandlers.discarding());
                answered.incrementAndGet();
            } catch (Exception notYetListening) {
                // the port opens part way through the start
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static final class Tee extends OutputStream {
        private final OutputStream first;
        private final OutputStream second;

        Tee(OutputStream first, OutputStream second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public synchronized void write(int b) throws java.io.IOException {
            first.write(b);
            second.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws java.io.IOException {
            first.write(b, off, len);
            second.write(b, off, len);
        }
    }
}
