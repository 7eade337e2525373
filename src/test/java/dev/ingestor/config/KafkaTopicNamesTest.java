package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import dev.ingestor.support.BoundSettings;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.junit.jupiter.api.Test;

/**
 * A topic name Kafka refuses stops the start, naming the property: the app ran, took every record, and each event
 * waited in the outbox for ever ("Invalid topics"), and after the name was put right the events written for the
 * wrong one stayed there, relayed to it again and again. The names taken are exactly those Kafka takes.
 */
class KafkaTopicNamesTest {

    private static final List<String> NAMES = List.of("ingestor.items", "ingestor.dead-letters", "items_2026", "x",
            "A-Z.a_z-09", "x".repeat(249), "x".repeat(250), "items/2026", "bad:topic", "ingestor items", "items?x=1",
            "öl", ".", "..", "...", "", "items\n");

    @Test
    void aTopicNameKafkaRefusesStopsTheStartNamingTheProperty() {
        for (String property : List.of("ingestor.kafka.items-topic", "ingestor.kafka.dead-letters-topic")) {
            assertThatThrownBy(() -> BoundSettings.bind(KafkaSettings.class, Map.of(property, "items/2026")))
                    .hasStackTraceContaining(property).hasStackTraceContaining("Kafka");
        }
    }

    @Test
    void theNamesTakenAreThoseKafkaTakes() {
        for (String name : NAMES) {
            boolean kafkaTakes = kafkaTakes(name);
            if (kafkaTakes) {
                assertThat(BoundSettings.bind(KafkaSettings.class, Map.of("ingestor.kafka.items-topic", name))
                        .getItemsTopic()).isEqualTo(name);
            } else {
                assertThatThrownBy(() -> BoundSettings.bind(KafkaSettings.class,
                        Map.of("ingestor.kafka.items-topic", name))).as("%s", name)
                        .hasStackTraceContaining("ingestor.kafka.items-topic");
            }
        }
    }

    private static boolean kafkaTakes(String name) {
        try {
            Topic.validate(name);
            return true;
        } catch (InvalidTopicException e) {
            return false;
        }
    }
}
