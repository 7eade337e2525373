package dev.ingestor.config;

import jakarta.validation.constraints.Pattern;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.stereotype.Component;
import org.springframework.validation.annotation.Validated;

/**
 * {@code ingestor.kafka.*}: the cluster and the topics. Read by the embedded broker's start, processing, the
 * outbox relay and the gauges, so it sits here. {@code outbox.RelayInstaller} makes the relay routes of both
 * topics from it.
 */
@Component("kafkaSettings")
@Validated
@ConfigurationProperties(prefix = "ingestor.kafka")
public class KafkaSettings {

    /**
     * Kafka's own rule for a topic name (its {@code Topic.validate}). Checked at start: Kafka's producer fails every
     * event of another name as an invalid topic, a failure that passes, so the app took every record and its events
     * waited in the outbox for ever; and once the name was put right, the events written for the wrong one stayed.
     */
    private static final String TOPIC_NAME = "(?!\\.\\.?\\z)[a-zA-Z0-9._-]{1,249}";
    private static final String NOT_A_TOPIC_NAME = "is no name Kafka takes for a topic: 1 to 249 of a-z, A-Z, 0-9,"
            + " '.', '_' and '-', and neither '.' nor '..' (the events of any other would wait in the outbox for ever)";

    /**
     * The Kafka cluster events go to; empty: the embedded single-node broker ({@code ingestor.embedded.kafka.port}).
     */
    private String bootstrapServers = "";
    /**
     * Topic of the item events. A name Kafka takes (1 to 249 of a-z, A-Z, 0-9, '.', '_', '-'; not '.' or '..');
     * another stops the start.
     */
    @Pattern(regexp = TOPIC_NAME, message = NOT_A_TOPIC_NAME)
    private String itemsTopic = "ingestor.items";
    /** Topic of the dead-letter events. A name Kafka takes, as for {@code items-topic}; another stops the start. */
    @Pattern(regexp = TOPIC_NAME, message = NOT_A_TOPIC_NAME)
    private String deadLettersTopic = "ingestor.dead-letters";

    public String getBootstrapServers() { return bootstrapServers; }
    public void setBootstrapServers(String bootstrapServers) { this.bootstrapServers = bootstrapServers; }
    public String getItemsTopic() { return itemsTopic; }
    public void setItemsTopic(String itemsTopic) { this.itemsTopic = itemsTopic; }
    public String getDeadLettersTopic() { return deadLettersTopic; }
    public void setDeadLettersTopic(String deadLettersTopic) { this.deadLettersTopic = deadLettersTopic; }
}
