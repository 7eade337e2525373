package dev.ingestor.web;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import dev.ingestor.config.IngestorProperties;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.platform.http.springboot.PlatformHttpMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * API keys, configured only as the hex SHA-256 of each key ({@code ingestor.suppliers.<CODE>.api-key-sha256},
 * {@code ingestor.admin.api-key-sha256}; lists, so a key can be rotated). A request presents its key as
 * {@code Authorization: Bearer <key>} or {@code X-Api-Key: <key>}, never in the query string or a form field.
 * The key is checked by the HTTP front door (dev.ingestor.security) before anything of the body is read; the
 * routes only take the caller it established, and drop the headers carrying the key so that no log or reply
 * can show it.
 */
@Component("apiKeys")
public class ApiKeys {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.http");
    public static final String API_KEY_HEADER = "X-Api-Key";
    /** The shipped demo keys: acme-demo-key, globex-demo-key, admin-demo-key (see docs/http-api.md, Push over HTTP). */
    public static final Set<String> DEMO_KEY_HASHES = Set.of(
            "8676d15d94dabdd1283e6c407e2bb08a7b5c13b4e3667d4795c17172e080a3d4",
            "2e2764ef486a4aa498e60ef5ed6b88ce7dd8bfc8b3309c5c15950a5c3d1a8c20",
            "806647bb62d32253b6797dad9d71d211d172005a6564317a920e9ba78322a338");

    private final Map<String, Caller> byHash = new HashMap<>();

    public ApiKeys(IngestorProperties properties, AdminSettings admin) {
        Set<String> demo = new TreeSet<>();
        properties.getSuppliers().forEach((code, supplier) -> register(supplier.getApiKeySha256(),
                Caller.supplier(code), "ingestor.suppliers." + code + ".api-key-sha256", demo));
        register(admin.getApiKeySha256(), Caller.operator(), "ingestor.admin.api-key-sha256", demo);
        if (!demo.isEmpty()) {
            // security.DemoKeysOnLoopbackOnly has already warned, once, and kept this instance on loopback
            LOG.debug("the demo API keys of {} are active", demo);
        }
        if (byHash.isEmpty()) {
            LOG.warn("no API keys are configured: every HTTP request will be answered 401");
        }
    }

    private void register(List<String> hashes, Caller caller, String property, Set<String> demo) {
        for (String raw : hashes) {
            String hash = configuredHash(raw, property);
            if (hash == null) {
                continue;
            }
            Caller previous = byHash.put(hash, caller);
            if (previous != null && !previous.name().equals(caller.name())) {
                throw new IllegalStateException(property + ": the same key is configured for " + previous.name()
                        + " and " + caller.name() + "; each key must belong to one caller");
            }
            if (DEMO_KEY_HASHES.contains(hash)) {
                demo.add(caller.name());
            }
        }
    }

    /**
     * A configured key hash in lower case, or null for an empty entry; anything but 64 hex digits stops the start,
     * naming the property. The one rule for every property that holds the SHA-256 of a secret.
     */
    public static String configuredHash(String raw, String property) {
        String hash = raw == null ? "" : raw.trim().toLowerCase(Locale.ROOT);
        if (hash.isEmpty()) {
            return null;
        }
        if (!hash.matches("[0-9a-f]{64}")) {
            throw new IllegalStateException(property + " holds a value that is not a hex SHA-256 (64 hex digits);"
                    + " configure the hash of the key, e.g. printf %s \"$KEY\" | sha256sum");
        }
        return hash;
    }

    /**
     * Second step of the admin routes (route configuration admin-caller): the admin key, or 403. The front door
     * refuses other keys on the admin paths already; this keeps an admin route safe on its own.
     */
    public void requireAdmin(Exchange exchange) {
        Caller caller = exchange.getProperty(Caller.PROPERTY, Caller.class);
        if (caller == null || !caller.admin()) {
            throw new ApiProblemException(
                    Problem.of(403, "forbidden", "Forbidden", "the admin API needs the admin key"));
        }
    }

    /**
     * First step of every API route (route configurations api-caller and admin-caller): takes the caller the
     * front door established for this request (a request attribute, which no client can set) into
     * {@link Caller#PROPERTY}, or answers 401.
     */
    public void authenticate(Exchange exchange) {
        Message message = exchange.getMessage();
        message.removeHeader("Authorization");
        message.removeHeader(API_KEY_HEADER);
        Caller caller = callerOfRequest(exchange);
        if (caller == null) {
            throw unauthorized(NO_KEY);
        }
        exchange.setProperty(Caller.PROPERTY, caller);
    }

    private static Caller callerOfRequest(Exchange exchange) {
        if (exchange.getIn() instanceof PlatformHttpMessage http && http.getRequest() != null
                && http.getRequest().getAttribute(Caller.REQUEST_ATTRIBUTE) instanceof Caller caller) {
            return caller;
        }
        return null;
    }

    /** The caller whose key has this SHA-256 (known by its hash prefix), or empty for an unknown key. */
    public Optional<Caller> callerForHash(String hash) {
        Caller caller = byHash.get(hash);
        return caller == null ? Optional.empty() : Optional.of(caller.withKeyId(hash));
    }

    /** The hashes of every configured key: a finite set, so state kept per key stays bounded. */
    public Set<String> keyHashes() {
        return Set.copyOf(byHash.keySet());
    }

    /**
     * The key of a request, from {@code Authorization: Bearer <key>} or else {@code X-Api-Key}; null when
     * neither holds one. Headers only: a key in a URL ends up in access logs, proxies and browser history.
     */
    public static String presentedKey(String authorization, String apiKeyHeader) {
        if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            String key = authorization.substring(7).trim();
            if (!key.isEmpty()) {
                return key;
            }
        }
        return apiKeyHeader == null || apiKeyHeader.isBlank() ? null : apiKeyHeader.trim();
    }

    public static final String NO_KEY = "this API needs a key: send it as 'Authorization: Bearer <key>' or 'X-Api-Key: <key>'";
    public static final String WRONG_KEY = "the API key is not valid";

    private static ApiProblemException unauthorized(String detail) {
        return new ApiProblemException(Problem.of(401, "unauthorized", "Unauthorized", detail),
                Map.of("WWW-Authenticate", "Bearer realm=\"ingestor\""));
    }

    public static String sha256(String key) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
