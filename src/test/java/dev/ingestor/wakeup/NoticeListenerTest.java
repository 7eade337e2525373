package dev.ingestor.wakeup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import dev.ingestor.config.DatabaseSettings;
import dev.ingestor.support.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/** {@link NoticeListener}'s loop on a real PostgreSQL, without the application around it. */
class NoticeListenerTest {

    private static final String DATABASE = "notice_listener";

    @Test
    void theListenerListensAgainAfterAnErrorInItsLoop() throws Exception {
        JdbcTemplate db = TestPostgres.migrated(DATABASE);
        AtomicInteger wakeAlls = new AtomicInteger();
        AtomicInteger wokeAll = new AtomicInteger();
        // the first wake-up after connecting fails with an Error, as a stack overflow or memory run out would
        WorkSignals signals = new WorkSignals() {
            @Override
            public void raiseAll() {
                if (wakeAlls.incrementAndGet() == 1) {
                    throw new StackOverflowError("on purpose");
                }
                super.raiseAll();
                wokeAll.incrementAndGet();
            }
        };
        WakeupSettings settings = new WakeupSettings();
        settings.setReconnectDelay(Duration.ofMillis(100));
        try (HikariDataSource pool = new HikariDataSource(); CamelContext camel = new DefaultCamelContext()) {
            NoticeListener listener = listening(settings, signals, pool, camel, "listener");
            WorkSignals.Signal validation = signals.signal(WorkChannels.VALIDATION, "");
            await().atMost(Duration.ofSeconds(10)).until(() -> wokeAll.get() >= 1 && listener.isListening());
            // after the wake-up of the connection that followed the Error: only a notification raises it now
            long seen = validation.raises();
            db.execute("NOTIFY " + WorkChannels.VALIDATION);
            await().atMost(Duration.ofSeconds(10)).until(() -> validation.raises() > seen);
        }
    }

    @Test
    void aListenerThatFailsRightAfterEachConnectWaitsTwiceAsLongEachTime() throws Exception {
        TestPostgres.migrated(DATABASE);
        AtomicInteger wakeAlls = new AtomicInteger();
        // every wake-up after connecting fails
        WorkSignals signals = new WorkSignals() {
            @Override
            public void raiseAll() {
                wakeAlls.incrementAndGet();
                throw new IllegalStateException("on purpose");
            }
        };
        WakeupSettings settings = new WakeupSettings();
        settings.setReconnectDelay(Duration.ofMillis(100));
        settings.setReconnectMaxDelay(Duration.ofSeconds(10));
        try (HikariDataSource pool = new HikariDataSource(); CamelContext camel = new DefaultCamelContext()) {
            listening(settings, signals, pool, camel, "failing-listener");
            await().atMost(Duration.ofSeconds(10)).until(() -> wakeAlls.get() >= 1);
            Thread.sleep(2500);
        }
        // connects at 0, 0.1, 0.3, 0.7 and 1.5 s (the next at 3.1), where the first delay every time would be 20
        assertThat(wakeAlls.get()).isBetween(2, 6);
    }

    /** A listener of instance {@code name} on the test database, started with {@code camel}. */
    private static NoticeListener listening(WakeupSettings settings, WorkSignals signals, HikariDataSource pool,
            CamelContext camel, String name) throws Exception {
        pool.setJdbcUrl(TestPostgres.jdbcUrl(DATABASE));
        camel.start();
        NoticeListener listener = new NoticeListener(settings, signals, pool, camel, new SimpleMeterRegistry(),
                new DatabaseSettings(), WorkNoticesTest.instance(name));
        listener.register();
        return listener;
    }
}
