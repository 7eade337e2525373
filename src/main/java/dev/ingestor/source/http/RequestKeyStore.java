package dev.ingestor.source.http;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.ingestor.config.InstanceId;
import dev.ingestor.config.JsonNesting;
import dev.ingestor.logging.SafeText;
import dev.ingestor.web.ApiProblemException;
import dev.ingestor.web.HttpReplies;
import dev.ingestor.web.HttpSettings;
import dev.ingestor.web.Problem;
import jakarta.annotation.PreDestroy;
import org.apache.camel.Body;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.builder.ThreadPoolProfileBuilder;
import org.apache.camel.spi.ExecutorServiceManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.ObjectMapper;

/**
 * Request-level idempotency on (supplier, Idempotency-Key), in PostgreSQL (table http_request).
 *
 * <p>The row is inserted first, IN_PROGRESS and leased to this request; the primary key, not a read before
 * the write, decides which of several racing requests does the work. The owner stores its response with the
 * effects in one transaction ({@link #complete}); a transient failure deletes the row ({@link #release}) so
 * that the retry runs again. The others get the stored response verbatim, 422 for another payload under the
 * same key, or 409 while the first is still in flight. A row whose lease ran out (its instance died) or whose
 * TTL passed is taken over by the next request with that key.
 */
@Component("requestKeys")
public class RequestKeyStore {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.http");
    private static final Logger ADMIN_LOG = LoggerFactory.getLogger("dev.ingestor.admin");
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";
    /** Exchange property: the renewal of a running request's lease ({@link #keepLeaseAlive}). */
    public static final String LEASE_PROPERTY = "IngestorRequestLease";
    private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {};
    private static final ObjectMapper JSON = JsonNesting.mapper();

    /**
     * Inserts, or takes over an expired row or a dead owner's row of the same request; returns whether ours. An expired
     * row still in progress under a live lease stays its request's: a TTL shorter than a request's run must not let a
     * retry take the key from a request still running.
     */
    private static final String CLAIM = """
            INSERT INTO http_request AS r (supplier, idempotency_key, fingerprint, state, owner, lease_until,
                expires_at)
            VALUES (?, ?, ?, 'IN_PROGRESS', ?, now() + make_interval(secs => ?), now() + make_interval(secs => ?))
            ON CONFLICT (supplier, idempotency_key) DO UPDATE
              SET fingerprint = EXCLUDED.fingerprint, state = 'IN_PROGRESS', owner = EXCLUDED.owner,
                  lease_until = EXCLUDED.lease_until, expires_at = EXCLUDED.expires_at, status = NULL,
                  headers = NULL, body = NULL, job_id = NULL, created_at = now(), completed_at = NULL
              WHERE (r.expires_at < now() AND (r.state <> 'IN_PROGRESS' OR r.lease_until < now()))
                 OR (r.state = 'IN_PROGRESS' AND r.lease_until < now() AND r.fingerprint = EXCLUDED.fingerprint)
            RETURNING owner
            """;

    private final JdbcTemplate jdbc;
    private final HttpReplies replies;
    private final String instance;
    private final double leaseSeconds;
    private final double ttlSeconds;
    private final ExecutorServiceManager pools;
    /**
     * Renews the leases of the requests running here ({@link #running}), all of them in one UPDATE every third of the
     * lease: under load, when the connection pool is taken by the requests themselves, the renewals wait for one
     * connection once per period, not once per request one after the other (which let leases of live requests run
     * out, and a partner's retry take over a request still running). Camel's thread pool: named, listed, shut down
     * with the context.
     */
    private final ScheduledExecutorService renewals;
    /** The claims of the requests running here whose leases are renewed. */
    private final Set<RequestClaim> running = ConcurrentHashMap.newKeySet();

    public RequestKeyStore(JdbcTemplate jdbc, HttpReplies replies, InstanceId instanceId, HttpSettings http,
            CamelContext camelContext) {
        this.jdbc = jdbc;
        this.replies = replies;
        this.instance = instanceId.value();
        this.leaseSeconds = http.getInFlightLease().toMillis() / 1000.0;
        this.ttlSeconds = http.getIdempotencyTtl().toMillis() / 1000.0;
        this.pools = camelContext.getExecutorServiceManager();
        this.renewals = pools.newScheduledThreadPool(this, "request-key-lease",
                new ThreadPoolProfileBuilder("request-key-lease").poolSize(1).build());
        long period = Math.max(100, (long) (leaseSeconds * 1000 / 3));
        renewals.scheduleAtFixedRate(this::renewRunning, period, period, TimeUnit.MILLISECONDS);
    }

    @PreDestroy
    void stopRenewals() {
        pools.shutdownNow(renewals);
    }

    /**
     * Keeps the claim's lease alive while its request runs, so a batch that takes longer than the in-flight
     * lease keeps its key (a retry meanwhile gets 409) and only a request whose instance died loses it. The
     * renewal runs every third of the lease on a pooled connection of its own, outside the request's
     * transaction, so it commits at once. Close the returned handle when the request is done.
     */
    public AutoCloseable keepAlive(RequestClaim claim) {
        running.add(claim);
        return () -> running.remove(claim);
    }

    /**
     * Route step: keeps the lease of this request's claim ({@link RequestClaim#PROPERTY}) alive until
     * {@link #stopRenewing}, holding the renewal as the exchange property {@link #LEASE_PROPERTY}.
     */
    public void keepLeaseAlive(@ExchangeProperty(RequestClaim.PROPERTY) RequestClaim claim, Exchange exchange) {
        exchange.setProperty(LEASE_PROPERTY, keepAlive(claim));
    }

    /** Route step: the request is done, whatever its outcome; its lease is no longer renewed. */
    public void stopRenewing(@ExchangeProperty(LEASE_PROPERTY) AutoCloseable renewal) throws Exception {
        if (renewal != null) {
            renewal.close();
        }
    }

    /** Renews the leases of every request running here, in one statement; never throws (the schedule goes on). */
    private void renewRunning() {
        List<RequestClaim> claims = List.copyOf(running);
        if (claims.isEmpty()) {
            return;
        }
        try {
            jdbc.update("UPDATE http_request r SET lease_until = now() + make_interval(secs => ?)"
                    + " FROM unnest(?::text[], ?::text[], ?::text[]) AS c(supplier, idempotency_key, owner)"
                    + " WHERE r.supplier = c.supplier AND r.idempotency_key = c.idempotency_key AND r.owner = c.owner"
                    + " AND r.state = 'IN_PROGRESS'",
                    leaseSeconds, claims.stream().map(RequestClaim::supplier).toArray(String[]::new),
                    claims.stream().map(RequestClaim::idempotencyKey).toArray(String[]::new),
                    claims.stream().map(RequestClaim::owner).toArray(String[]::new));
        } catch (RuntimeException | Error e) {
            LOG.warn("cannot renew the leases of {} request key(s) in flight here, among them supplier={} key={}: {}",
                    claims.size(), claims.get(0).supplier(), claims.get(0).idempotencyKey(), e.getMessage());
        }
    }

    /**
     * Claims the request's key. When this request owns it, sets {@link RequestClaim#PROPERTY}; when the key
     * was answered before, writes the stored response and leaves the property unset; otherwise refuses the
     * request (409 in flight, 422 another payload).
     */
    public void claim(@Body ItemBatchRequest request, Exchange exchange) {
        String owner = instance + "/" + UUID.randomUUID();
        for (int attempt = 0; attempt < 3; attempt++) {
            List<String> ours = jdbc.queryForList(CLAIM, String.class, request.supplier(), request.idempotencyKey(),
                    request.fingerprint(), owner, leaseSeconds, ttlSeconds);
            if (!ours.isEmpty()) {
                exchange.setProperty(RequestClaim.PROPERTY,
                        new RequestClaim(request.supplier(), request.idempotencyKey(), owner));
                return;
            }
            List<Stored> existing = jdbc.query("SELECT fingerprint, state, status, headers, body,"
                    + " expires_at < now() FROM http_request WHERE supplier = ? AND idempotency_key = ?",
                    (rs, i) -> new Stored(rs.getString(1), rs.getString(2), rs.getInt(3), rs.getString(4),
                            rs.getBytes(5), rs.getBoolean(6)),
                    request.supplier(), request.idempotencyKey());
            if (existing.isEmpty()) {
                continue; // released between the two statements: claim again
            }
            answer(exchange, request, existing.get(0));
            return;
        }
        // the key was claimed and let go of by others three times between this request's two statements (a retry
        // storm of fast failures): still in flight, as far as this request can tell
        LOG.info("request key supplier={} key={} changed hands three times while this request looked; answered as"
                + " in flight", request.supplier(), SafeText.of(request.idempotencyKey()));
        throw inFlight(request);
    }

    private ApiProblemException inFlight(ItemBatchRequest request) {
        return new ApiProblemException(Problem.of(409, "request-in-flight", "Conflict",
                "a request with Idempotency-Key '" + request.idempotencyKey() + "' is still being processed;"
                        + " retry after " + replies.retryAfterSeconds() + " seconds to get its response"),
                Map.of("Retry-After", replies.retryAfterSeconds()));
    }

    private void answer(Exchange exchange, ItemBatchRequest request, Stored stored) {
        if (stored.expired()) {
            // a request still running past its key's expiry: the key is a fresh one for any body once it ends
            throw inFlight(request);
        } else if (!stored.fingerprint().equals(request.fingerprint())) {
            LOG.info("request key reused for another payload supplier={} key={}", request.supplier(),
                    request.idempotencyKey());
            throw new ApiProblemException(Problem.of(422, "idempotency-key-reused", "Unprocessable Content",
                    "Idempotency-Key '" + request.idempotencyKey() + "' was already used for a different request"
                            + " (another body, path or mode); use a fresh key for a new request"));
        } else if ("COMPLETED".equals(stored.state())) {
            Map<String, String> headers = new LinkedHashMap<>(readHeaders(stored.headers()));
            headers.put(REPLAYED_HEADER, "true");
            replies.raw(exchange, stored.status(), headers, stored.body());
        } else {
            throw inFlight(request);
        }
    }

    /**
     * Stores the response of the owner. Runs inside the transaction of the effects: if the claim was lost
     * (the lease ran out and another request took the key), this throws and the effects roll back.
     */
    public void complete(RequestClaim claim, int status, Map<String, String> headers, byte[] body, UUID jobId) {
        int updated = jdbc.update(
                "UPDATE http_request SET state = 'COMPLETED', status = ?, headers = ?, body = ?, job_id = ?,"
                        + " completed_at = now(), lease_until = NULL"
                        + " WHERE supplier = ? AND idempotency_key = ? AND owner = ? AND state = 'IN_PROGRESS'",
                status, writeHeaders(headers), body, jobId, claim.supplier(), claim.idempotencyKey(), claim.owner());
        if (updated != 1) {
            // the effects roll back with this exception; the request that took the key over answers for it
            LOG.warn(
                    "request key supplier={} key={} was taken over while this request ran; its effects are rolled back",
                    claim.supplier(), claim.idempotencyKey());
            throw new ApiProblemException(Problem.of(409, "request-key-lost", "Conflict", "Idempotency-Key '"
                    + claim.idempotencyKey() + "' was taken over by a retry of this request while it ran (its lease,"
                    + " ingestor.http.in-flight-lease, could not be renewed); nothing of this attempt was kept,"
                    + " retry after " + replies.retryAfterSeconds() + " seconds to get the response"),
                    Map.of("Retry-After", replies.retryAfterSeconds()));
        }
    }

    /**
     * Route step, inside the transaction of the effects: the answer ({@link ItemBatchReply#PROPERTY}) stored
     * under the request's key, for its retries ({@link #complete}).
     */
    public void storeReply(@ExchangeProperty(RequestClaim.PROPERTY) RequestClaim claim,
            @ExchangeProperty(ItemBatchReply.PROPERTY) ItemBatchReply reply) {
        complete(claim, reply.status(), reply.headers(), reply.body(), reply.jobId());
    }

    /**
     * Route step of a doCatch: a failure is never the request's outcome, so the key goes ({@link #release}) and
     * the retry runs again; the failure itself goes on to the caller, which answers it (503 when transient).
     */
    public void releaseAfter(@ExchangeProperty(Exchange.EXCEPTION_CAUGHT) Exception failure,
            @ExchangeProperty(RequestClaim.PROPERTY) RequestClaim claim) throws Exception {
        release(claim);
        throw failure;
    }

    /** Lets the key go after a failure that is not the request's outcome, so a retry runs again. */
    public void release(RequestClaim claim) {
        try {
            jdbc.update(
                    "DELETE FROM http_request WHERE supplier = ? AND idempotency_key = ? AND owner = ? AND state = 'IN_PROGRESS'",
                    claim.supplier(), claim.idempotencyKey(), claim.owner());
        } catch (RuntimeException e) {
            // the database is likely gone; the lease lets a retry take the key over once it runs out
            LOG.warn(
                    "cannot release request key supplier={} key={} ({}); a retry takes it over after the in-flight lease",
                    claim.supplier(), claim.idempotencyKey(), e.getMessage());
        }
    }

    /** One key as an operator looks at it: state, fingerprint, owner and lease, stored status, job, expiry. */
    public Optional<Map<String, Object>> find(String supplier, String key) {
        return jdbc.queryForList("SELECT supplier, idempotency_key AS \"key\", state, fingerprint,"
                + " owner, lease_until AS \"leaseUntil\", status, job_id AS \"jobId\", created_at AS \"createdAt\","
                + " completed_at AS \"completedAt\", expires_at AS \"expiresAt\" FROM http_request"
                + " WHERE supplier = ? AND idempotency_key = ?", supplier, key).stream().findFirst();
    }

    /**
     * An operator lets go of a key stuck IN_PROGRESS, so the supplier's retry runs: whoever owns it, or only while
     * {@code owner} does when that is named (the owner the operator saw: a retry that took the key over since runs
     * on). A key that completed is left alone, its stored response is the answer. Logged with who did it.
     */
    public boolean releaseInProgress(String supplier, String key, String owner, String who) {
        int deleted = jdbc.update("DELETE FROM http_request WHERE supplier = ? AND idempotency_key = ?"
                + " AND state = 'IN_PROGRESS' AND owner = coalesce(?, owner)", supplier, key, owner);
        ADMIN_LOG.info("admin action=release-request-key supplier={} key={} by={} result={}", SafeText.of(supplier, 80),
                SafeText.of(key, 200), who, deleted == 1 ? "released" : "refused (not in progress, or unknown)");
        return deleted == 1;
    }

    private static Map<String, String> readHeaders(String json) {
        if (json == null) {
            return Map.of();
        }
        try {
            return JSON.readValue(json, HEADERS);
        } catch (JacksonException e) {
            throw new IllegalStateException("stored response headers are not JSON", e);
        }
    }

    private static String writeHeaders(Map<String, String> headers) {
        try {
            return JSON.writeValueAsString(headers);
        } catch (JacksonException e) {
            throw new IllegalStateException("a map of strings is always JSON", e);
        }
    }

    /** A key's row as a request that could not claim it reads it; {@code expired}: past its TTL (still running). */
    private record Stored(String fingerprint, String state, int status, String headers, byte[] body,
            boolean expired) {
    }
}
