package dev.ingestor.embedded;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code ingestor.embedded.kafka.*}: the embedded default broker. */
@ConfigurationProperties(prefix = "ingestor.embedded.kafka")
public class EmbeddedKafkaProperties {

    /** The broker's port on 127.0.0.1; 0 picks a free one. */
    private int port = 9092;

    public int getPort() { return port; }
    public void setPort(int port) { this.port = port; }
}
