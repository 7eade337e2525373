package dev.ingestor.wakeup;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.camel.CamelContext;
import org.apache.camel.Consumer;
import org.apache.camel.spi.ScheduledPollConsumerScheduler;
import org.apache.camel.support.ScheduledPollConsumer;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduler of a polling route that a notification wakes: it runs the route's poll, then waits for the route's
 * {@code delay} as the stock scheduler does (fixed delay, after {@code initialDelay}), but polls at once when its
 * channel's {@link WorkSignals.Signal} is raised, also by a notification that arrived during the poll. The delay
 * stays the safety net: work whose notification was lost is found by the next poll. Greedy polling is the
 * consumer's own ({@code greedy=true}: polls again at once while a poll finds work).
 * <p>
 * Named in a route by the scheduler option, with the channel (and payload) as the scheduler's properties; the bean
 * {@code wakeOnNotice} is a prototype, so each route gets an instance of its own ({@link WakeupConfiguration}):
 * <pre>
 *   scheduler: "#wakeOnNotice"
 *   scheduler.channel: ingestor_outbox
 *   scheduler.payload: "{{topic}}"
 * </pre>
 * It runs on a thread of Camel's ExecutorServiceManager, stopped with the route.
 */
public class WakeOnNotice extends ServiceSupport implements ScheduledPollConsumerScheduler {

    private static final Logger LOG = LoggerFactory.getLogger(WakeOnNotice.class);
    /** The least pause after a poll that failed with an Error, whatever the route's delay. */
    static final long MIN_PAUSE_AFTER_ERROR_MS = 1000;
    /** The pause doubles with each Error in a row, up to this many times the first: 16 s at the least pause. */
    static final int MOST_DOUBLINGS = 4;

    private final WorkSignals signals;
    private String channel;
    private String payload = "";
    private CamelContext camelContext;
    private ScheduledPollConsumer consumer;
    private Runnable task;
    private ExecutorService executor;
    /**
     * Counts starts and stops: a loop polls only while the count is the one its start made, so a poll that swallowed
     * the stop's interrupt (a driver, a library) does not keep its thread polling after the stop.
     */
    private volatile long runs;

    public WakeOnNotice(WorkSignals signals) {
        this.signals = signals;
    }

    /** The channel whose notifications wake the route ({@link WorkChannels}). */
    public void setChannel(String channel) {
        this.channel = channel;
    }

    /** Only notifications with this payload wake the route (the outbox's channel names a topic); default none. */
    public void setPayload(String payload) {
        this.payload = payload == null ? "" : payload;
    }

    @Override
    public void setCamelContext(CamelContext camelContext) { this.camelContext = camelContext; }

    @Override
    public CamelContext getCamelContext() { return camelContext; }

    @Override
    public void onInit(Consumer consumer) {
        if (!(consumer instanceof ScheduledPollConsumer polling)) {
            throw new IllegalArgumentException("WakeOnNotice schedules a polling consumer (the scheduler component),"
                    + " not " + consumer.getClass().getName());
        }
        this.consumer = polling;
    }

    @Override
    public void scheduleTask(Runnable task) {
        this.task = task;
    }

    @Override
    public synchronized void startScheduler() {
        if (executor != null) {
            return;
        }
        if (channel == null || channel.isBlank()) {
            throw new IllegalStateException("the route " + consumer.getRouteId() + " names WakeOnNotice as its"
                    + " scheduler without scheduler.channel (one of " + WorkChannels.ALL + ")");
        }
        WorkSignals.Signal signal = signals.signal(channel, payload);
        executor = camelContext.getExecutorServiceManager().newSingleThreadExecutor(this,
                "wakeup " + consumer.getEndpoint().getEndpointKey());
        long run = ++runs;
        executor.execute(() -> pollUntilStopped(signal, run));
    }

    @Override
    public synchronized boolean isSchedulerStarted() { return executor != null; }

    @Override
    public synchronized void unscheduleTask() {
        if (executor != null) {
            runs++;
            // interrupts the wait; a poll in progress ends as the consumer stops it
            camelContext.getExecutorServiceManager().shutdownNow(executor);
            executor = null;
        }
    }

    @Override
    protected void doStop() {
        unscheduleTask();
    }

    @Override
    protected void doShutdown() {
        unscheduleTask();
    }

    private void pollUntilStopped(WorkSignals.Signal signal, long run) {
        TimeUnit unit = consumer.getTimeUnit();
        long delay = Math.max(0, consumer.getDelay());
        try {
            if (consumer.getInitialDelay() > 0) {
                unit.sleep(consumer.getInitialDelay());
            }
            int errorsInARow = 0;
            while (!Thread.currentThread().isInterrupted() && runs == run) {
                long seen = signal.raises();
                Error failed = runOnce();
                if (failed == null) {
                    errorsInARow = 0;
                    signal.awaitRaisedSince(seen, delay, unit);
                } else {
                    // not woken early: a poll that fails so every time must not spin, nor log an ERROR a second
                    long pause = pauseAfterErrors(++errorsInARow, unit.toMillis(delay));
                    LOG.error("a poll of route {} failed with {} ({} in a row); it polls again in {} ms",
                            consumer.getRouteId(), failed.toString(), errorsInARow, pause);
                    Thread.sleep(pause);
                }
            }
        } catch (InterruptedException stopped) {
            Thread.currentThread().interrupt();
        }
    }

    /** The pause after {@code inARow} failed polls: the route's delay, at least a second, doubled for each. */
    static long pauseAfterErrors(int inARow, long delayMillis) {
        return Math.max(MIN_PAUSE_AFTER_ERROR_MS, delayMillis) << Math.min(inARow - 1, MOST_DOUBLINGS);
    }

    /**
     * One poll; the {@link Error} it failed with (a stack overflow, memory run out in one poll), else null. Camel's
     * poll logs such an Error and throws it on, which would end this loop, and with it the stage's polls on this
     * instance for good while the route still shows as started: the next poll comes after a pause ({@link
     * #pauseAfterErrors}), and no notification brings it sooner.
     */
    private Error runOnce() {
        try {
            task.run();
            return null;
        } catch (Error e) {
            // Camel's poll logged it with its stack
            return e;
        }
    }

    @Override
    public String toString() {
        return "WakeOnNotice[" + channel + (payload.isEmpty() ? "" : ":" + payload) + "]";
    }
}
