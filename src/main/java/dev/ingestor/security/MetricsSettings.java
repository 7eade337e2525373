package dev.ingestor.security;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code ingestor.metrics.*}: how Prometheus scrapes without the admin key. */
@ConfigurationProperties(prefix = "ingestor.metrics")
public class MetricsSettings {

    /**
     * Hex SHA-256 of each token Prometheus may scrape {@code /actuator/prometheus} with ({@code Authorization:
     * Bearer <token>}), comma-separated; several allow rotation. Such a token reaches that endpoint only. Empty:
     * only the admin key scrapes.
     */
    private List<String> bearerTokenSha256 = new ArrayList<>();

    public List<String> getBearerTokenSha256() { return bearerTokenSha256; }
    public void setBearerTokenSha256(List<String> bearerTokenSha256) { this.bearerTokenSha256 = bearerTokenSha256; }
}
