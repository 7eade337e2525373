package dev.ingestor.embedded;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;

/** {@code ingestor.embedded.postgres.*}: the embedded default database. */
@ConfigurationProperties(prefix = "ingestor.embedded.postgres")
public class EmbeddedPostgresProperties {

    /** 0 picks a free port at each start. */
    private int port = 0;
    /** Formerly the embedded pool's size; {@code spring.datasource.hikari.maximum-pool-size} sizes every pool. */
    private Integer poolSize;

    public int getPort() { return port; }
    public void setPort(int port) { this.port = port; }

    /** Still read when set, over {@code spring.datasource.hikari.maximum-pool-size}. */
    @Deprecated
    @DeprecatedConfigurationProperty(replacement = "spring.datasource.hikari.maximum-pool-size", reason = "one property sizes the pool of the embedded and of an external database; still read, over it,"
            + " until 1.0.0", since = "0.1.0")
    public Integer getPoolSize() { return poolSize; }
    @Deprecated
    public void setPoolSize(Integer poolSize) { this.poolSize = poolSize; }

    /** The former pool size, when a deployment still sets it; null otherwise. */
    Integer poolSizeIfSet() {
        return poolSize;
    }
}
