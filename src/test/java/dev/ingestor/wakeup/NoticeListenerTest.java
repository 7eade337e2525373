package dev.ingestor.wakeup;

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
            pool.setJdbcUrl(TestPostgres.jdbcUrl(DATABASE));
            camel.start();
            NoticeListener listener = new NoticeListener(settings, signals, pool, camel, new SimpleMeterRegistry(),
                    new DatabaseSettings(), WorkNoticesTest.instance("listener"));
            listener.register();
            WorkSignals.Signal validation = signals.signal(WorkChannels.VALIDATION, "");
            await().atMost(Duration.ofSeconds(10)).until(() -> wokeAll.get() >= 1 && listener.isListening());
            // after the wake-up of the connection that followed the Error: only a notification raises it now
            long seen = validation.raises();
            db.execute("NOTIFY " + WorkChannels.VALIDATION);
            await().atMost(Duration.ofSeconds(10)).until(() -> validation.raises() > seen);
        }
    }
}
