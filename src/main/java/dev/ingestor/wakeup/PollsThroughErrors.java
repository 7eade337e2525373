package dev.ingestor.wakeup;

import org.apache.camel.Consumer;
import org.apache.camel.support.DefaultScheduledPollConsumerScheduler;
import org.apache.camel.support.ScheduledPollConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.annotation.Scope;
import org.springframework.stereotype.Component;

/**
 * The scheduler of the routes run on a schedule that no notification wakes (notifications, the relay-stall check,
 * housekeeping, the counts' folds, the outbox's vacuum, the file drop's strays and claim renewal): Camel's own, with
 * the route's {@code initialDelay}, {@code delay}, fixed delay and scheduled executor, except that a run that fails
 * with an {@link Error} (a stack overflow, memory run out in one of Camel's steps) is followed by the next. Camel's
 * poll logs such an Error and throws it on, and the stock scheduler's task then never runs again: the route's
 * notifications, claim renewals or housekeeping would stop there on this instance, while it still shows as started.
 * (Camel's timer is no better: an Error ends its thread.) Exceptions are the route's error handling's, as before;
 * they never reach here.
 * <p>
 * Such a route keeps its pace, a run a turn, after an Error too: its turn is what it was set to, and skipped turns
 * would be worse than the Error's line each turn (claim renewal runs every third of the claims' lease, and would let
 * this instance's claims lapse while it still reads their files; housekeeping, once an hour, would wait hours). The
 * file sources' scheduler, which lists folders, backs off instead ({@code source.file.FilePollsThroughErrors}).
 * <p>
 * A prototype, so each endpoint gets an instance of its own (Camel looks the scheduler up once per endpoint); named in
 * the routes by {@code scheduler: "#pollsThroughErrors"}. The route's {@code scheduler.*} options are not read: the
 * delays are the consumer's.
 */
@Component(PollsThroughErrors.NAME)
@Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
public class PollsThroughErrors extends DefaultScheduledPollConsumerScheduler {

    public static final String NAME = "pollsThroughErrors";
    private static final Logger LOG = LoggerFactory.getLogger(PollsThroughErrors.class);

    private String routeId;
    /** Touched by the one scheduled task only (one consumer per route). */
    private int errorsInARow;
    private int toSkip;

    @Override
    public void onInit(Consumer consumer) {
        if (!(consumer instanceof ScheduledPollConsumer polling)) {
            throw new IllegalArgumentException(getClass().getSimpleName() + " schedules a polling consumer, not "
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
        prepare(polling);
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
        pollStarts();
        try {
            task.run();
            errorsInARow = 0;
            pollEnded();
        } catch (Error e) {
            // Camel's poll logged it with its stack
            errorsInARow++;
            toSkip = turnsToSkip(errorsInARow);
            afterError(e, errorsInARow, toSkip);
        }
    }

    /** The route this schedules. */
    protected String routeId() {
        return routeId;
    }

    /** For a scheduler of its own kind: {@code polling} is about to be scheduled (again). */
    protected void prepare(ScheduledPollConsumer polling) {
        // nothing to prepare
    }

    /** For a scheduler of its own kind: a poll starts. */
    protected void pollStarts() {
        // nothing to do
    }

    /** For a scheduler of its own kind: a poll ended without an Error. */
    protected void pollEnded() {
        // nothing to do
    }

    /** The turns skipped after {@code errorsInARow} Errors in a row: none, the route keeps its pace. */
    protected int turnsToSkip(int errorsInARow) {
        return 0;
    }

    /**
     * A poll failed with {@code e}, the {@code errorsInARow}th in a row; the next {@code toSkip} turns are skipped.
     * Must not throw: this task would end.
     */
    protected void afterError(Error e, int errorsInARow, int toSkip) {
        LOG.error("a run of route {} failed with {} ({} in a row); it runs again at its next turn", routeId,
                e.toString(), errorsInARow);
    }
}
