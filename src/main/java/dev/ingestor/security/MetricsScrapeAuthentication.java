package dev.ingestor.security;

import java.util.List;

import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;

/**
 * A scraper established by its metrics token ({@link MetricsToken}): ROLE_METRICS, which the front door's rules
 * let reach {@code /actuator/prometheus} and nothing else. No {@code Caller}: the routes never see it.
 */
final class MetricsScrapeAuthentication extends AbstractAuthenticationToken implements KeyedAuthentication {

    private final String tokenHash;

    MetricsScrapeAuthentication(String tokenHash) {
        super(List.of(new SimpleGrantedAuthority("ROLE_METRICS")));
        this.tokenHash = tokenHash;
        setAuthenticated(true);
    }

    @Override
    public String keyHash() {
        return tokenHash;
    }

    @Override
    public Object getCredentials() { return ""; }

    @Override
    public Object getPrincipal() { return getName(); }

    @Override
    public String getName() { return "metrics(token " + tokenHash.substring(0, 8) + ")"; }
}
