package dev.ingestor.wakeup;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.ScheduledPollConsumer;
import org.junit.jupiter.api.Test;

/** A stage's polls under {@link WakeOnNotice}, with Camel's own polling consumer and no database. */
class WakeOnNoticeTest {

    /** A polling consumer whose first poll fails with an {@link Error}, counting its polls. */
    private static final class FailsFirst extends ScheduledPollConsumer {

        private final AtomicInteger polls;

        FailsFirst(CamelContext camel, AtomicInteger polls) {
            super(camel.getEndpoint("direct:stage"), exchange -> {});
            this.polls = polls;
        }

        @Override
        protected int poll() {
            if (polls.incrementAndGet() == 1) {
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
            WakeOnNotice scheduler = new WakeOnNotice(new WorkSignals());
            scheduler.setCamelContext(camel);
            scheduler.setChannel(WorkChannels.VALIDATION);
            FailsFirst consumer = new FailsFirst(camel, polls);
            consumer.setScheduler(scheduler);
            consumer.setInitialDelay(0);
            consumer.setDelay(20);
            consumer.start();
            try {
                await().atMost(Duration.ofSeconds(5)).until(() -> polls.get() >= 3);
            } finally {
                consumer.stop();
            }
        }
    }
}
