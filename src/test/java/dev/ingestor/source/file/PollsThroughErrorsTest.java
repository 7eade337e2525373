package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.component.file.GenericFileFilter;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A file route under {@link PollsThroughErrors}: Camel's file consumer, a real folder, no database. */
class PollsThroughErrorsTest {

    @TempDir
    Path inbox;

    @Test
    void aFileRouteWhosePollFailedWithAnErrorTakesTheNextFile() throws Exception {
        AtomicInteger listings = new AtomicInteger();
        // the first poll's listing fails with an Error, as a stack overflow or memory run out in a listing would
        GenericFileFilter<Object> failsFirst = (GenericFile<Object> file) -> {
            if (listings.incrementAndGet() == 1) {
                throw new StackOverflowError("on purpose");
            }
            return true;
        };
        List<String> taken = new CopyOnWriteArrayList<>();
        Files.writeString(inbox.resolve("first.csv"), "a\n");
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.getRegistry().bind(PollsThroughErrors.NAME, new PollsThroughErrors());
            camel.getRegistry().bind("failsFirst", failsFirst);
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("file:" + inbox + "?scheduler=#" + PollsThroughErrors.NAME
                            + "&filter=#failsFirst&initialDelay=0&delay=50&delete=true")
                            .routeId("drops")
                            .process(exchange -> taken.add(exchange.getMessage().getHeader("CamelFileName",
                                    String.class)));
                }
            });
            camel.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> listings.get() >= 1);
            Files.writeString(inbox.resolve("second.csv"), "b\n");
            await().atMost(Duration.ofSeconds(10)).until(() -> taken.size() == 2);
        }
        assertThat(taken).containsExactlyInAnyOrder("first.csv", "second.csv");
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
