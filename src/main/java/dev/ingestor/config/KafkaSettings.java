package dev.ingestor.config;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.stereotype.Component;

/**
 * {@code ingestor.kafka.*}: the cluster and the topics. Read by the embedded broker's start, processing, the
 * outbox relay and the gauges, so it sits here. {@code outbox.RelayInstaller} makes the relay routes of both
 * topics from it.
 */
@Component("kafkaSettings")
@ConfigurationProperties(prefix = "ingestor.kafka")
public class KafkaSettings {

    /**
     * The Kafka cluster events go to; empty: the embedded single-node broker ({@code ingestor.embedded.kafka.port}).
     */
    private String bootstrapServers = "";
    /** Topic of the item events. */
    private String itemsTopic = "ingestor.items";
    /** Topic of the dead-letter events. */
    private String deadLettersTopic = "ingestor.dead-letters";

    public String getBootstrapServers() { return bootstrapServers; }
    public void setBootstrapServers(String bootstrapServers) { this.bootstrapServers = bootstrapServers; }
    public String getItemsTopic() { return itemsTopic; }
    public void setItemsTopic(String itemsTopic) { this.itemsTopic = itemsTopic; }
    public String getDeadLettersTopic() { return deadLettersTopic; }
    public void setDeadLettersTopic(String deadLettersTopic) { this.deadLettersTopic = deadLettersTopic; }
}
