package dev.ingestor.wakeup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.ScheduledPollConsumer;
import org.junit.jupiter.api.Test;

/** A stage's polls under {@link WakeOnNotice}, with Camel's own polling consumer and no database. */
class WakeOnNoticeTest {

    /** A polling consumer whose first {@code failing} polls fail with an {@link Error}, counting its polls. */
    private static final class FailsFirst extends ScheduledPollConsumer {

        private final AtomicInteger polls;
        private final int failing;

        FailsFirst(CamelContext camel, AtomicInteger polls, int failing) {
            super(camel.getEndpoint("direct:stage"), exchange -> {});
            this.polls = polls;
            this.failing = failing;
        }

        @Override
        protected int poll() {
            if (polls.incrementAndGet() <= failing) {
                // not an exception: Camel's poll logs an Error and throws it on
                throw new StackOverflowError("on purpose");
            }
            return 0;
        }
    }

    @Test
    void aPollThatFailedWithAnErrorIsFollowedByTheNextAfterTheDelay() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.start();
            FailsFirst consumer = polling(camel, new FailsFirst(camel, polls, 1), 20);
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> polls.get() >= 3);
            } finally {
                consumer.stop();
            }
        }
    }

    @Test
    void aPollThatFailsWithAnErrorEveryTimeDoesNotSpin() throws Exception {
        // no delay at all: after a failed poll the pause is still the least one
        long started = System.nanoTime();
        int polls = pollsFailingEveryTime(WakeOnNotice.MIN_PAUSE_AFTER_ERROR_MS * 3 / 2);
        // one poll, then one a pause later at most (a late wake-up on a busy machine may allow one more)
        long pauses = (System.nanoTime() - started) / 1_000_000 / WakeOnNotice.MIN_PAUSE_AFTER_ERROR_MS;
        assertThat(polls).isBetween(1, (int) pauses + 1);
    }

    @Test
    void aPollThatFailsWithAnErrorEveryTimeWaitsTwiceAsLongEachTime() throws Exception {
        // polls at 0, 1, 3 (and 7) pauses, where a pause every time would be 5 in 4.5
        assertThat(pollsFailingEveryTime(WakeOnNotice.MIN_PAUSE_AFTER_ERROR_MS * 9 / 2)).isBetween(1, 3);
        assertThat(WakeOnNotice.pauseAfterErrors(1, 0)).isEqualTo(WakeOnNotice.MIN_PAUSE_AFTER_ERROR_MS);
        assertThat(WakeOnNotice.pauseAfterErrors(2, 5000)).isEqualTo(10_000);
        assertThat(WakeOnNotice.pauseAfterErrors(1000, 0)).isEqualTo(16 * WakeOnNotice.MIN_PAUSE_AFTER_ERROR_MS);
    }

    /** A polling consumer whose poll takes a while and swallows an interrupt meanwhile, as some drivers do. */
    private static final class SwallowsInterrupts extends ScheduledPollConsumer {

        private final AtomicInteger polls;

        SwallowsInterrupts(CamelContext camel, AtomicInteger polls) {
            super(camel.getEndpoint("direct:swallowing"), exchange -> {});
            this.polls = polls;
        }

        @Override
        protected int poll() {
            polls.incrementAndGet();
            try {
                Thread.sleep(300);
            } catch (InterruptedException swallowed) {
                // on purpose: the flag is cleared and not set again
            }
            return 0;
        }
    }

    @Test
    void aStopDuringAPollThatSwallowsTheInterruptEndsThePolling() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.start();
            SwallowsInterrupts consumer = polling(camel, new SwallowsInterrupts(camel, polls), 0);
            await().atMost(Duration.ofSeconds(5)).until(() -> polls.get() >= 1);
            Thread.sleep(100);
            // during a poll: its sleep swallows the interrupt of the stop
            consumer.getScheduler().unscheduleTask();
            consumer.stop();
            await().atMost(Duration.ofSeconds(5)).until(() -> Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(t -> t.isAlive() && t.getName().contains("wakeup direct://swallowing")));
        }
    }

    /** How often a route with no delay whose every poll fails with an Error polls in {@code watchMillis}. */
    private static int pollsFailingEveryTime(long watchMillis) throws Exception {
        AtomicInteger polls = new AtomicInteger();
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.start();
            FailsFirst consumer = polling(camel, new FailsFirst(camel, polls, Integer.MAX_VALUE), 0);
            try {
                await().atMost(Duration.ofSeconds(5)).until(() -> polls.get() >= 1);
                Thread.sleep(watchMillis);
            } finally {
                consumer.stop();
            }
        }
        return polls.get();
    }

    /** The consumer under a WakeOnNotice of the validation channel, polling every {@code delayMs}, started. */
    private static <C extends ScheduledPollConsumer> C polling(CamelContext camel, C consumer, long delayMs)
            throws Exception {
        WakeOnNotice scheduler = new WakeOnNotice(new WorkSignals());
        scheduler.setCamelContext(camel);
        scheduler.setChannel(WorkChannels.VALIDATION);
        consumer.setScheduler(scheduler);
        consumer.setInitialDelay(0);
        consumer.setDelay(delayMs);
        consumer.start();
        return consumer;
    }
}
