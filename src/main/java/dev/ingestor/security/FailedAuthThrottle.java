package dev.ingestor.security;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.ingestor.config.HttpLimits;
import dev.ingestor.logging.SafeText;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * Failed authentications per client, in a window that starts with a client's first failure: after
 * {@code ingestor.http.limits.failed-auth-per-window} failures the address is answered 429 until the window
 * ends, so guessing keys or flooding the log costs the guesser time, not the server. One WARN per address
 * per window (its first failure) tells the operator; the failures after it are only counted. The addresses
 * kept are bounded (a Caffeine cache): windows that ended are dropped, and past {@link #MAX_ADDRESSES} an address
 * is forgotten (by the cache's frequency and recency policy, so an address failing often tends to stay), so a
 * caller with many addresses cannot make the map grow.
 * <p>
 * A client is its address as the servlet container gives it ({@link #clientOf}): the socket's peer, since
 * application.yaml sets {@code server.forward-headers-strategy: none} so that no header a client writes
 * ({@code X-Forwarded-For}) can choose it, even on a platform where Spring Boot would trust such headers by
 * itself. An operator behind a proxy sets the strategy, and the proxies trusted, explicitly. An IPv6 client is
 * counted by its /64: one host is given a whole /64 and could otherwise try from a new address each time.
 */
@Component
class FailedAuthThrottle {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.http");
    static final int MAX_ADDRESSES = 10_000;
    private static final int MAX_UNPARSED = 64;
    static final String PROPERTY = "ingestor.http.limits.failed-auth-per-window";

    private final int limit;
    private final long windowNanos;
    private final Duration window;
    private final LongSupplier nanoTime;
    private final Cache<String, Window> windows;

    @Autowired
    public FailedAuthThrottle(HttpLimits limits) {
        this(limits.getFailedAuthPerWindow(), limits.getFailedAuthWindow(),
                System::nanoTime, MAX_ADDRESSES);
    }

    FailedAuthThrottle(int limit, Duration window, LongSupplier nanoTime, int maxAddresses) {
        if (limit < 1 || window.isZero() || window.isNegative()) {
            throw new IllegalStateException(
                    PROPERTY + " must be at least 1 and ingestor.http.limits.failed-auth-window positive");
        }
        this.limit = limit;
        this.window = window;
        this.windowNanos = window.toNanos();
        this.nanoTime = nanoTime;
        // a window is written once, at its first failure, so it expires when it ends; eviction runs in the
        // calling thread (the calls hold this throttle's lock anyway), so the bound holds after every failure
        this.windows = Caffeine.newBuilder()
                .maximumSize(maxAddresses)
                .expireAfterWrite(window)
                .ticker(nanoTime::getAsLong)
                .executor(Runnable::run)
                .build();
    }

    /** Whole seconds until this address may try again (at least 1), or 0 when it is not refused. */
    public synchronized long refusedForSeconds(String remoteAddress) {
        String address = clientOf(remoteAddress);
        long now = nanoTime.getAsLong();
        Window current = current(address, now);
        if (current == null || current.failures < limit) {
            return 0;
        }
        long left = current.start + windowNanos - now;
        return Math.max(1, (left + 999_999_999L) / 1_000_000_000L);
    }

    /** Counts one failed authentication of this address. */
    public synchronized void failed(String remoteAddress, String reason, String method, String path) {
        String address = clientOf(remoteAddress);
        long now = nanoTime.getAsLong();
        Window current = current(address, now);
        if (current == null) {
            windows.put(address, new Window(now));
            LOG.warn(
                    "authentication failed from {}: {} ({} {}); further failures from this address are counted, not logged,"
                            + " for {}, and after {} of them it is answered 429 until then ({})",
                    address, reason, SafeText.of(method, 16), SafeText.of(path, 200), window, limit, PROPERTY);
        } else {
            current.failures++;
        }
    }

    /**
     * The client a request's address stands for: an IPv4 address itself, an IPv6 address its /64
     * ({@code 2001:db8:1:2::/64}; an IPv4-mapped one is its IPv4 address), anything else (a forwarding
     * strategy may hand on whatever a header said) its first characters, so that no key grows without bound.
     */
    static String clientOf(String remoteAddress) {
        Optional<InetAddress> parsed = IpLiterals.parse(remoteAddress);
        if (parsed.isEmpty()) {
            String text = String.valueOf(remoteAddress);
            return text.length() <= MAX_UNPARSED ? text : text.substring(0, MAX_UNPARSED);
        }
        byte[] bytes = parsed.get().getAddress();
        if (parsed.get() instanceof Inet4Address) {
            return parsed.get().getHostAddress();
        }
        return String.format("%x:%x:%x:%x::/64", group(bytes, 0), group(bytes, 2), group(bytes, 4), group(bytes, 6));
    }

    private static int group(byte[] bytes, int at) {
        return (bytes[at] & 0xff) << 8 | bytes[at + 1] & 0xff;
    }

    /** Addresses tracked now (for tests of the bound). */
    synchronized long tracked() {
        windows.cleanUp();
        return windows.estimatedSize();
    }

    private Window current(String address, long now) {
        Window w = windows.getIfPresent(address);
        if (w != null && now - w.start >= windowNanos) {
            windows.invalidate(address);
            return null;
        }
        return w;
    }

    private static final class Window {
        final long start;
        int failures = 1;

        Window(long start) {
            this.start = start;
        }
    }
}
