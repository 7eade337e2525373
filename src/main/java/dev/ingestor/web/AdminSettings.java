package dev.ingestor.web;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** {@code ingestor.admin.*}: the operators' key, which reaches every supplier. */
@ConfigurationProperties(prefix = "ingestor.admin")
public class AdminSettings {

    /**
     * Hex SHA-256 of each admin API key, comma-separated; several allow rotation. While any demo key is set the
     * app listens on loopback only.
     */
    private List<String> apiKeySha256 = new ArrayList<>();

    public List<String> getApiKeySha256() { return apiKeySha256; }
    public void setApiKeySha256(List<String> apiKeySha256) { this.apiKeySha256 = apiKeySha256; }
}
