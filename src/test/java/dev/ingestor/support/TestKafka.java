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

    private TestKafka() {
    }

    public static synchronized String bootstrapServers() {
        if (broker == null) {
            try {
                broker = EmbeddedKafkaServer.start(Files.createTempDirectory("ingestor-test-kafka-"), 0);
            } catch (Exception e) {
                throw new IllegalStateException("embedded Kafka did not start", e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(broker::close));
        }
        return broker.bootstrapServers();
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
                if (!records.isEmpty()) {
                    records.forEach(all::add);
                    lastSeen = System.currentTimeMillis();
                }
            }
        }
        return all;
    }
}
