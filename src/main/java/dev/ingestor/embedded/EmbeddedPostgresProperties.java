package dev.ingestor.embedded;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code ingestor.embedded.postgres.*}: the embedded default database. */
@ConfigurationProperties(prefix = "ingestor.embedded.postgres")
public class EmbeddedPostgresProperties {

    /** 0 picks a free port at each start. */
    private int port = 0;
    /** Connections in the pool to the embedded database. */
    private int poolSize = 16;

    public int getPort() { return port; }
    public void setPort(int port) { this.port = port; }
    public int getPoolSize() { return poolSize; }
    public void setPoolSize(int poolSize) { this.poolSize = poolSize; }
}
