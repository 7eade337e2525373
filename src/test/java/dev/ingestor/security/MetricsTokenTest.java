package dev.ingestor.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.web.AdminSettings;
import dev.ingestor.web.ApiKeys;
import org.junit.jupiter.api.Test;

/** The metrics token is configured as a hash, and must be a secret of its own. */
class MetricsTokenTest {

    private static MetricsToken token(String adminKey, String... tokenHashes) {
        AdminSettings admin = new AdminSettings();
        admin.setApiKeySha256(List.of(ApiKeys.sha256(adminKey)));
        MetricsSettings metrics = new MetricsSettings();
        metrics.setBearerTokenSha256(List.of(tokenHashes));
        return new MetricsToken(metrics, new ApiKeys(new IngestorProperties(), admin));
    }

    @Test
    void aTokenIsKnownByItsHashInAnyCase() {
        MetricsToken token = token("own-admin-key", ApiKeys.sha256("scrape").toUpperCase(), " ", "");
        assertThat(token.matches(ApiKeys.sha256("scrape"))).isTrue();
        assertThat(token.matches(ApiKeys.sha256("other"))).isFalse();
        assertThat(token.hashes()).hasSize(1);
        assertThat(token("own-admin-key").hashes()).isEmpty();
    }

    @Test
    void aValueThatIsNoHashOrTheHashOfAKeyStopsTheStartNamingTheProperty() {
        assertThatThrownBy(() -> token("own-admin-key", "scrape"))
                .hasMessageContaining("ingestor.metrics.bearer-token-sha256")
                .hasMessageContaining("not a hex SHA-256");
        assertThatThrownBy(() -> token("own-admin-key", ApiKeys.sha256("own-admin-key")))
                .hasMessageContaining("ingestor.metrics.bearer-token-sha256").hasMessageContaining("an API key");
        assertThatThrownBy(() -> token("own-admin-key", ApiKeys.sha256("acme-demo-key")))
                .hasMessageContaining("demo key");
    }
}
