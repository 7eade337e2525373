package dev.ingestor.wakeup;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.springframework.stereotype.Component;

/**
 * One signal per channel and payload, raised when a notification arrives and awaited by the routes it wakes. A
 * signal counts its raises: a waiter remembers the count it saw before it last polled and returns at once when the
 * count has moved since, so a notification that arrives while the route is polling is never missed.
 */
@Component
public class WorkSignals {

    private final Map<String, Signal> signals = new ConcurrentHashMap<>();

    /** The signal of {@code channel} with {@code payload} ({@code ""} for a channel without payload). */
    public Signal signal(String channel, String payload) {
        return signals.computeIfAbsent(key(channel, payload), k -> new Signal());
    }

    /** A notification arrived: wakes whoever waits on its channel and payload. */
    public void raise(String channel, String payload) {
        Signal signal = signals.get(key(channel, payload));
        if (signal != null) {
            signal.raise();
        }
    }

    /**
     * Wakes every route: notifications may have been lost (the listener was reconnecting), so each looks for work
     * at once instead of at its next poll.
     */
    public void raiseAll() {
        signals.values().forEach(Signal::raise);
    }

    private static String key(String channel, String payload) {
        return payload == null || payload.isEmpty() ? channel : channel + ":" + payload;
    }

    /** Raised when work may be waiting; counts its raises. */
    public static final class Signal {

        private long raises;

        /** How many times this signal was raised so far. */
        public synchronized long raises() {
            return raises;
        }

        synchronized void raise() {
            raises++;
            notifyAll();
        }

        /**
         * Waits until the signal has been raised more than {@code seen} times, at most {@code timeout}. True when it
         * was raised (perhaps before the call), false when the time ran out.
         */
        public synchronized boolean awaitRaisedSince(long seen, long timeout, TimeUnit unit)
                throws InterruptedException {
            long deadline = System.nanoTime() + unit.toNanos(timeout);
            while (raises == seen) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return true;
        }
    }
}
