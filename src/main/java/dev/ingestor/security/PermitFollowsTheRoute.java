package dev.ingestor.security;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;

import org.springframework.boot.task.ThreadPoolTaskExecutorCustomizer;
import org.springframework.core.task.TaskDecorator;
import org.springframework.stereotype.Component;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;

/**
 * Camel's platform-http runs each request's route (and reads its body) on Spring's task executor, and Spring
 * MVC may answer the request (async timeout) while that route still runs. So the key's place among its
 * concurrent requests must follow the route, not only the answer: a task handed to the executor while a request
 * with a permit is being served holds the permit until the route starts writing its answer
 * ({@link #releaseHoldOfThisThread}, called by {@link ReleaseWhenAnswering}) or, when somebody else answered,
 * until the task ends. A task the executor refuses (queue full) lets go of it at once. Spring Boot applies this
 * decorator and customizer to its task executor, the one platform-http uses.
 */
@Component
class PermitFollowsTheRoute implements TaskDecorator, ThreadPoolTaskExecutorCustomizer {

    /** The hold of the task this thread runs, while it runs one. */
    private static final ThreadLocal<KeyLimits.Hold> RUNNING = new ThreadLocal<>();

    /** The thread that runs a request's route is writing the answer: its hold on {@code permit} ends now. */
    static void releaseHoldOfThisThread(KeyLimits.Permit permit) {
        KeyLimits.Hold hold = RUNNING.get();
        if (hold != null && hold.of(permit)) {
            hold.release();
        }
    }

    @Override
    public Runnable decorate(Runnable task) {
        RequestAttributes request = RequestContextHolder.getRequestAttributes();
        Object permit = request == null
                ? null
                : request.getAttribute(KeyLimitFilter.PERMIT_ATTRIBUTE, RequestAttributes.SCOPE_REQUEST);
        if (!(permit instanceof KeyLimits.Permit held)) {
            return task;
        }
        return new HoldingTask(task, held.newHold());
    }

    @Override
    public void customize(org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor executor) {
        executor.setRejectedExecutionHandler(PermitFollowsTheRoute::refused);
    }

    private static void refused(Runnable task, ThreadPoolExecutor executor) {
        if (task instanceof HoldingTask holding) {
            holding.hold.release();
        }
        throw new RejectedExecutionException("the request queue is full (spring.task.execution.pool.queue-capacity)");
    }

    private record HoldingTask(Runnable task, KeyLimits.Hold hold) implements Runnable {
        @Override
        public void run() {
            RUNNING.set(hold);
            try {
                task.run();
            } finally {
                RUNNING.remove();
                hold.release();
            }
        }
    }
}
