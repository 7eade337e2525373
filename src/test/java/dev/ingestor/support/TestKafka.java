package dev.ingestor.support;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.embedded.EmbeddedKafkaServer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** One real Kafka broker (KRaft, in this JVM) for the whole test run. */
public final class TestKafka {

    private static EmbeddedKafkaServer broker;
    private static java.nio.file.Path dir;
    private static int port;

    private TestKafka() {
    }

    public static synchronized String bootstrapServers() {
        if (broker == null) {
            try {
                dir = Files.createTempDirectory("ingestor-test-kafka-");
                broker = EmbeddedKafkaServer.start(dir, 0);
                port = Integer
                        .parseInt(broker.bootstrapServers().substring(broker.bootstrapServers().lastIndexOf(':') + 1));
            } catch (Exception e) {
                throw new IllegalStateException("embedded Kafka did not start", e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                if (broker != null) {
                    broker.close();
                }
                // the broker's log is hundreds of MB after a benchmark; a run leaves none of it behind
                try {
                    org.springframework.util.FileSystemUtils.deleteRecursively(dir);
                } catch (java.io.IOException ignored) {
                    // a temp folder; the system cleans it some day
                }
            }));
        }
        return broker.bootstrapServers();
    }

    /** Stops the broker, as an outage would; {@link #start()} brings it back on the same port and log. */
    public static synchronized void stop() {
        bootstrapServers();
        broker.close();
        broker = null;
    }

    public static synchronized void start() throws Exception {
        if (broker == null) {
            broker = EmbeddedKafkaServer.start(dir, port);
        }
    }

    /** Every record on {@code topic} from the beginning, read until {@code quiet} passes without a new one. */
    public static List<ConsumerRecord<String, String>> readAll(String topic, Duration quiet) {
        List<ConsumerRecord<String, String>> all = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                "bootstrap.servers", bootstrapServers(), "group.id", "test-" + UUID.randomUUID(),
                "auto.offset.reset", "earliest", "enable.auto.commit", "false"),
                new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long lastSeen = System.currentTimeMillis();
            long deadline = System.currentTimeMillis() + 60_000;
            while (System.currentTimeMillis() - lastSeen < quiet.toMillis() && System.currentTimeMillis() < deadline) {
                var records = consumer.poll(Duration.ofMillis(200));
                if (!caughtUp(consumer)) {
                    // still joining its group (the first consumer of a run waits for __consumer_offsets) or behind
                    // what the topic held when it joined: not quiet yet, however slow the machine
                    lastSeen = System.currentTimeMillis();
                }
                if (!records.isEmpty()) {
                    records.forEach(all::add);
                    lastSeen = System.currentTimeMillis();
                }
            }
        }
        return all;
    }

    private static boolean caughtUp(KafkaConsumer<String, String> consumer) {
        var assigned = consumer.assignment();
        if (assigned.isEmpty()) {
            return false;
        }
        return consumer.endOffsets(assigned).entrySet().stream()
                .allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
    }
}
