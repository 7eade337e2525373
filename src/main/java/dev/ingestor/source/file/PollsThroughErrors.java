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
 * The scheduler of the file-drop and SFTP routes: Camel's own, with the route's {@code initialDelay}, {@code delay}
 * and fixed delay, except that a poll that fails with an {@link Error} (a stack overflow, memory run out in one
 * listing) is followed by the next after the delay. Camel's poll logs such an Error and throws it on, and the stock
 * scheduler's task then never runs again: the supplier's files would wait, on this instance, until a restart, while
 * the route still shows as started. Exceptions are the poll strategy's, as before; they never reach here.
 * <p>
 * A prototype, so each route gets an instance of its own; named in the templates by {@code scheduler:
 * "#pollsThroughErrors"}.
 */
@Component(PollsThroughErrors.NAME)
@Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
public class PollsThroughErrors extends DefaultScheduledPollConsumerScheduler {

    static final String NAME = "pollsThroughErrors";
    private static final Logger LOG = LoggerFactory.getLogger(PollsThroughErrors.class);

    private String routeId;

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
        routeId = polling.getRouteId();
        super.onInit(consumer);
    }

    @Override
    public void scheduleTask(Runnable task) {
        super.scheduleTask(() -> {
            try {
                task.run();
            } catch (Error e) {
                // Camel's poll logged it with its stack
                LOG.error("a poll of route {} failed with {}; it polls again after its delay", routeId, e.toString());
            }
        });
    }
}
