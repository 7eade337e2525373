package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.file.GenericFileFilter;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file route under {@link PollsThroughErrors}: Camel's file consumer, a real folder, no
 * database. The listing fails with an Error where a filter says, as a stack overflow or memory run out would.
 */
class PollsThroughErrorsTest {

    @TempDir
    Path inbox;

    private final AtomicInteger listed = new AtomicInteger();
    private final List<String> taken = new CopyOnWriteArrayList<>();

    /** Lists the inbox every 50 ms, the {@code n}th file listed failing with an Error where {@code fails} says. */
    private CamelContext route(IntPredicate fails) throws Exception {
        GenericFileFilter<Object> failing = file -> {
            if (fails.test(listed.incrementAndGet())) {
                throw new StackOverflowError("on purpose");
            }
            return true;
        };
        CamelContext camel = new DefaultCamelContext();
        camel.getRegistry().bind(PollsThroughErrors.NAME, new PollsThroughErrors());
        camel.getRegistry().bind("failing", failing);
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("file:" + inbox + "?scheduler=#" + PollsThroughErrors.NAME
                        + "&filter=#failing&initialDelay=0&delay=50&delete=true")
                        .routeId("drops")
                        .process(exchange -> taken.add(exchange.getMessage().getHeader("CamelFileName", String.class)));
            }
        });
        camel.start();
        return camel;
    }

    @Test
    void aFileRouteWhosePollFailedWithAnErrorTakesTheNextFile() throws Exception {
        Files.writeString(inbox.resolve("first.csv"), "a\n");
        try (CamelContext camel = route(n -> n == 1)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> listed.get() >= 1);
            Files.writeString(inbox.resolve("second.csv"), "b\n");
            await().atMost(Duration.ofSeconds(10)).until(() -> taken.size() == 2);
        }
        assertThat(taken).containsExactlyInAnyOrder("first.csv", "second.csv");
    }

    @Test
    void aPollThatFailsWithAnErrorEveryTimeBacksOff() throws Exception {
        Files.writeString(inbox.resolve("poison.csv"), "a\n");
        long started = System.nanoTime();
        try (CamelContext camel = route(n -> true)) {
            Thread.sleep(3000);
        }
        // polls at 0, 1, 3, 7, 15, 31, 47 and 63 turns of 50 ms: 8 in 3.2 s, where every turn would be 64
        long turns = (System.nanoTime() - started) / 50_000_000;
        assertThat(listed.get()).isBetween(1, 8 + (int) (turns / 32));
    }

    @Test
    void theRoutesDelaysAreTheSchedulers() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            PollsThroughErrors scheduler = new PollsThroughErrors();
            camel.getRegistry().bind(PollsThroughErrors.NAME, scheduler);
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("file:" + inbox + "?scheduler=#" + PollsThroughErrors.NAME
                            + "&initialDelay=1234&delay=4321&useFixedDelay=false").routeId("drops").log("taken");
                }
            });
            camel.start();
            assertThat(scheduler.getInitialDelay()).isEqualTo(1234);
            assertThat(scheduler.getDelay()).isEqualTo(4321);
            assertThat(scheduler.isUseFixedDelay()).isFalse();
        }
    }
}
