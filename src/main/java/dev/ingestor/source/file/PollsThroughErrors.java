package dev.ingestor.source.file;

import org.apache.camel.Consumer;
import org.apache.camel.support.DefaultScheduledPollConsumerScheduler;
import org.apache.camel.support.ScheduledPollConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.annotation.Scope;
import org.springframework.stereotype.Component;

/**
 * The scheduler of the file-drop and SFTP routes: Camel's own, with the route's {@code initialDelay}, {@code delay},
 * fixed delay and scheduled executor, except that a poll that fails with an {@link Error} (a stack overflow, memory
 * run out in one listing) is followed by another. Camel's poll logs such an Error and throws it on, and the stock
 * scheduler's task then never runs again: the supplier's files would wait, on this instance, until a restart, while
 * the route still shows as started. Exceptions are the poll strategy's, as before; they never reach here.
 * <p>
 * An Error bypasses the consumer's own backoff and error count, so it has a backoff of its own: after {@code n}
 * Errors in a row the next poll skips {@code 2^(n-1) - 1} turns, up to {@link #MOST_SKIPPED}. The files the failed
 * poll had listed keep Camel's in-progress marks (Camel lets go of them only on an exception), so this instance
 * skips them until a restart; the other instances take them (their claims are not held, or held until the lease).
 * <p>
 * A prototype, so each endpoint gets an instance of its own (Camel looks the scheduler up once per endpoint; the
 * templates' endpoints differ per supplier); named in the templates by {@code scheduler: "#pollsThroughErrors"}. The
 * route's {@code scheduler.*} options are not read: the delays are the consumer's.
 */
@Component(PollsThroughErrors.NAME)
@Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
public class PollsThroughErrors extends DefaultScheduledPollConsumerScheduler {

    static final String NAME = "pollsThroughErrors";
    /** The most turns skipped after Errors in a row: 8 s at the file drop's 500 ms, 8 minutes at SFTP's 30 s. */
    static final int MOST_SKIPPED = 15;
    private static final Logger LOG = LoggerFactory.getLogger(PollsThroughErrors.class);

    private String routeId;
    /** Touched by the one scheduled task only (one consumer per route). */
    private int errorsInARow;
    private int toSkip;

    @Override
    public void onInit(Consumer consumer) {
        if (!(consumer instanceof ScheduledPollConsumer polling)) {
            throw new IllegalArgumentException("PollsThroughErrors schedules a polling consumer, not "
                    + consumer.getClass().getName());
        }
        // what the consumer gives the scheduler it makes itself, and not one it is given (ScheduledPollConsumer)
        setInitialDelay(polling.getInitialDelay());
        setDelay(polling.getDelay());
        setTimeUnit(polling.getTimeUnit());
        setUseFixedDelay(polling.isUseFixedDelay());
        if (polling.getScheduledExecutorService() != null) {
            setScheduledExecutorService(polling.getScheduledExecutorService());
        }
        routeId = polling.getRouteId();
        // a route started again starts afresh
        errorsInARow = 0;
        toSkip = 0;
        super.onInit(consumer);
    }

    @Override
    public void scheduleTask(Runnable task) {
        super.scheduleTask(() -> pollOrSkip(task));
    }

    private void pollOrSkip(Runnable task) {
        if (toSkip > 0) {
            toSkip--;
            return;
        }
        try {
            task.run();
            errorsInARow = 0;
        } catch (Error e) {
            // Camel's poll logged it with its stack
            errorsInARow++;
            toSkip = (int) Math.min(MOST_SKIPPED, (1L << Math.min(errorsInARow - 1, 30)) - 1);
            LOG.error("a poll of route {} failed with {} ({} in a row); it polls again after {} more turn(s) of its"
                    + " delay", routeId, e.toString(), errorsInARow, toSkip);
        }
    }
}
