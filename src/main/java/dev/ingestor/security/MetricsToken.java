package dev.ingestor.security;

import java.util.LinkedHashSet;
import java.util.Set;

import dev.ingestor.web.ApiKeys;
import org.springframework.stereotype.Component;

/**
 * The tokens Prometheus scrapes {@code /actuator/prometheus} with, configured as their hex SHA-256
 * ({@value #PROPERTY}) so that the configuration holds no secret, as for API keys. A scraper's token reaches
 * that endpoint only: a leaked copy (it sits in Prometheus' configuration) shows metrics, never jobs, records
 * or admin actions, where the admin key Prometheus would otherwise need reaches everything. The admin key still
 * scrapes too.
 */
@Component
class MetricsToken {

    static final String PROPERTY = "ingestor.metrics.bearer-token-sha256";

    private final Set<String> hashes = new LinkedHashSet<>();

    public MetricsToken(MetricsSettings metrics, ApiKeys apiKeys) {
        for (String raw : metrics.getBearerTokenSha256()) {
            String hash = ApiKeys.configuredHash(raw, PROPERTY);
            if (hash == null) {
                continue;
            }
            if (apiKeys.callerForHash(hash).isPresent() || ApiKeys.DEMO_KEY_HASHES.contains(hash)) {
                throw new IllegalStateException(PROPERTY + " holds the hash of an API key (or a public demo key); the"
                        + " metrics token must be a secret of its own: openssl rand -hex 32");
            }
            hashes.add(hash);
        }
    }

    /** Whether a presented token with this SHA-256 is a metrics token. */
    boolean matches(String hash) {
        return hashes.contains(hash);
    }

    /** The hashes of every configured token: a finite set, so state kept per token stays bounded. */
    Set<String> hashes() {
        return Set.copyOf(hashes);
    }
}
