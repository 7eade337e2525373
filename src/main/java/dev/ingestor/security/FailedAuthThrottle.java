package dev.ingestor.security;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.logging.SafeText;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * Failed authentications per client address, in a window that starts with an address's first failure: after
 * {@code ingestor.http.limits.failed-auth-per-window} failures the address is answered 429 until the window
 * ends, so guessing keys or flooding the log costs the guesser time, not the server. One WARN per address
 * per window (its first failure) tells the operator; the failures after it are only counted. The addresses
 * kept are bounded: windows that ended are dropped, and past {@link #MAX_ADDRESSES} the least recently seen
 * address is forgotten, so a caller with many addresses cannot make the map grow.
 */
@Component
public class FailedAuthThrottle {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.http");
    static final int MAX_ADDRESSES = 10_000;
    static final String PROPERTY = "ingestor.http.limits.failed-auth-per-window";

    private final int limit;
    private final long windowNanos;
    private final Duration window;
    private final LongSupplier nanoTime;
    private final Map<String, Window> windows;

    @Autowired
    public FailedAuthThrottle(IngestorProperties properties) {
        this(properties.getHttp().getLimits().getFailedAuthPerWindow(), properties.getHttp().getLimits().getFailedAuthWindow(),
                System::nanoTime, MAX_ADDRESSES);
    }

    FailedAuthThrottle(int limit, Duration window, LongSupplier nanoTime, int maxAddresses) {
        if (limit < 1 || window.isZero() || window.isNegative()) {
            throw new IllegalStateException(PROPERTY + " must be at least 1 and ingestor.http.limits.failed-auth-window positive");
        }
        this.limit = limit;
        this.window = window;
        this.windowNanos = window.toNanos();
        this.nanoTime = nanoTime;
        this.windows = new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Window> eldest) {
                return size() > maxAddresses;
            }
        };
    }

    /** Whole seconds until this address may try again (at least 1), or 0 when it is not refused. */
    public synchronized long refusedForSeconds(String address) {
        long now = nanoTime.getAsLong();
        Window current = current(address, now);
        if (current == null || current.failures < limit) {
            return 0;
        }
        long left = current.start + windowNanos - now;
        return Math.max(1, (left + 999_999_999L) / 1_000_000_000L);
    }

    /** Counts one failed authentication of this address. */
    public synchronized void failed(String address, String reason, String method, String path) {
        long now = nanoTime.getAsLong();
        Window current = current(address, now);
        if (current == null) {
            windows.put(address, new Window(now));
            LOG.warn("authentication failed from {}: {} ({} {}); further failures from this address are counted, not logged,"
                            + " for {}, and after {} of them it is answered 429 until then ({})",
                    address, reason, SafeText.of(method, 16), SafeText.of(path, 200), window, limit, PROPERTY);
        } else {
            current.failures++;
        }
    }

    /** Addresses tracked now (for tests of the bound). */
    synchronized int tracked() {
        return windows.size();
    }

    private Window current(String address, long now) {
        Window w = windows.get(address);
        if (w != null && now - w.start >= windowNanos) {
            windows.remove(address);
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
