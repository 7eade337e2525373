package dev.ingestor.security;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.ingestor.config.HttpLimits;
import dev.ingestor.web.ApiKeys;
import dev.ingestor.web.Problem;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * What one API key (or metrics token) may do: at most {@code max-concurrent-per-key} requests being served at once (so
 * one
 * key cannot hold every server thread and database connection), and a token bucket of
 * {@code requests-per-second} with room for {@code burst} (Bucket4j), which stops a client looping on cheap
 * requests. State is kept per configured key hash only: the set of keys is fixed at start, so it is bounded.
 */
@Component
class KeyLimits {

    static final String CONCURRENT_PROPERTY = "ingestor.http.limits.max-concurrent-per-key";
    static final String RATE_PROPERTY = "ingestor.http.limits.requests-per-second";
    static final String BURST_PROPERTY = "ingestor.http.limits.burst";

    private final int maxConcurrent;
    private final int requestsPerSecond;
    private final int burst;
    private final Map<String, KeyState> byKeyHash;

    @Autowired
    public KeyLimits(HttpLimits limits, ApiKeys apiKeys, MetricsToken metricsToken) {
        this(limits, java.util.stream.Stream.concat(apiKeys.keyHashes().stream(),
                metricsToken.hashes().stream()).toList());
    }

    KeyLimits(HttpLimits limits, java.util.Collection<String> keyHashes) {
        this.maxConcurrent = limits.getMaxConcurrentPerKey();
        this.requestsPerSecond = limits.getRequestsPerSecond();
        this.burst = limits.getBurst();
        if (maxConcurrent < 1 || requestsPerSecond < 1 || burst < 1) {
            throw new IllegalStateException(CONCURRENT_PROPERTY + ", " + RATE_PROPERTY + " and " + BURST_PROPERTY
                    + " must each be at least 1");
        }
        this.byKeyHash = keyHashes.stream().distinct()
                .collect(Collectors.toUnmodifiableMap(Function.identity(), h -> new KeyState(
                        new Semaphore(maxConcurrent),
                        Bucket.builder()
                                .addLimit(l -> l.capacity(burst).refillGreedy(requestsPerSecond, Duration.ofSeconds(1)))
                                .build())));
    }

    /**
     * Admits one request of this key: a permit to release when the request has been answered, or the 429
     * problem naming the limit with its Retry-After seconds.
     */
    public Admission admit(String keyHash) {
        KeyState state = byKeyHash.get(keyHash);
        if (state == null) {
            // only keys the front door accepted get here, and those are all configured
            throw new IllegalStateException("no limits for a key that is not configured");
        }
        if (!state.inFlight.tryAcquire()) {
            return Admission.refused(Problem.of(429, "too-many-requests", "Too Many Requests",
                    "more than " + maxConcurrent + " requests of this key at once (" + CONCURRENT_PROPERTY + ")"), 1);
        }
        ConsumptionProbe probe = state.rate.tryConsumeAndReturnRemaining(1);
        if (!probe.isConsumed()) {
            state.inFlight.release();
            long seconds = Math.max(1, (probe.getNanosToWaitForRefill() + 999_999_999L) / 1_000_000_000L);
            return Admission.refused(Problem.of(429, "too-many-requests", "Too Many Requests",
                    "more than " + requestsPerSecond + " requests per second of this key, after a burst of " + burst
                            + " (" + RATE_PROPERTY + ", " + BURST_PROPERTY + ")"),
                    seconds);
        }
        return Admission.admitted(new Permit(state.inFlight));
    }

    private record KeyState(Semaphore inFlight, Bucket rate) {
    }

    /**
     * A request's place among its key's concurrent requests. It may be held by more than the request: the
     * thread that runs the request's route holds it too ({@link #hold()}), so the place is given back only
     * when the last holder lets go (the answer is sent and the route has really ended). Each holder calls
     * {@link #release()} exactly once.
     */
    public static final class Permit {
        private final Semaphore semaphore;
        private final java.util.concurrent.atomic.AtomicInteger holders = new java.util.concurrent.atomic.AtomicInteger(
                1);
        private final AtomicBoolean released = new AtomicBoolean();

        Permit(Semaphore semaphore) {
            this.semaphore = semaphore;
        }

        /** One more holder; each {@code hold()} is matched by one {@link #release()}. */
        public void hold() {
            holders.incrementAndGet();
        }

        public void release() {
            if (holders.updateAndGet(h -> Math.max(0, h - 1)) == 0 && released.compareAndSet(false, true)) {
                semaphore.release();
            }
        }

        /** The request's own hold (the one the permit was admitted with), to let go of once. */
        Hold requestHold() {
            return new Hold(this);
        }

        /** One more holder, to let go of once. */
        Hold newHold() {
            hold();
            return new Hold(this);
        }
    }

    /** One holder's share of a permit: however many of its ways out run, it lets go once. */
    static final class Hold {
        private final Permit permit;
        private final AtomicBoolean released = new AtomicBoolean();

        private Hold(Permit permit) {
            this.permit = permit;
        }

        boolean of(Permit other) {
            return permit == other;
        }

        void release() {
            if (released.compareAndSet(false, true)) {
                permit.release();
            }
        }
    }

    /** Either a permit or a refusal (problem and Retry-After seconds). */
    public record Admission(Optional<Permit> permit, Problem refusal, long retryAfterSeconds) {
        static Admission admitted(Permit permit) {
            return new Admission(Optional.of(permit), null, 0);
        }

        static Admission refused(Problem problem, long retryAfterSeconds) {
            return new Admission(Optional.empty(), problem, retryAfterSeconds);
        }
    }
}
