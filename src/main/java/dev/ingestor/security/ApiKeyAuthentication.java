package dev.ingestor.security;

import java.util.List;

import dev.ingestor.web.Caller;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.authority.SimpleGrantedAuthority;

/**
 * A caller established by its API key: the admin key is ROLE_ADMIN, a supplier's ROLE_SUPPLIER. Holds the
 * hash of the key (the configured value, not a secret) so that limits can be kept per key; never the key.
 */
final class ApiKeyAuthentication extends AbstractAuthenticationToken implements KeyedAuthentication {

    private final Caller caller;
    private final String keyHash;

    ApiKeyAuthentication(Caller caller, String keyHash) {
        super(List.of(new SimpleGrantedAuthority(caller.admin() ? "ROLE_ADMIN" : "ROLE_SUPPLIER")));
        this.caller = caller;
        this.keyHash = keyHash;
        setAuthenticated(true);
    }

    Caller caller() {
        return caller;
    }

    @Override
    public String keyHash() {
        return keyHash;
    }

    @Override
    public Object getCredentials() { return ""; }

    @Override
    public Object getPrincipal() { return caller; }

    @Override
    public String getName() { return caller.name(); }
}
