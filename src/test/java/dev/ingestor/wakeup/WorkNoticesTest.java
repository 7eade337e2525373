package dev.ingestor.wakeup;

import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import dev.ingestor.config.DatabaseSettings;
import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.InstanceId;
import dev.ingestor.support.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** {@link WorkNotices}' sender on a real PostgreSQL, with another instance listening there. */
class WorkNoticesTest {

    private static final String DATABASE = "work_notices";

    static InstanceId instance(String name) {
        IngestorProperties properties = new IngestorProperties();
        properties.setInstanceId(name);
        return new InstanceId(properties);
    }

    @Test
    void theSenderGoesOnAfterASendFailedWithAnError() throws Exception {
        TestPostgres.migrated(DATABASE).update("INSERT INTO wakeup_listener (instance, listening_until)"
                + " VALUES ('elsewhere', now() + interval '1 hour') ON CONFLICT (instance)"
                + " DO UPDATE SET listening_until = EXCLUDED.listening_until");
        String url = TestPostgres.jdbcUrl(DATABASE);
        AtomicInteger connections = new AtomicInteger();
        // the first send fails with an Error, as a stack overflow or memory run out in the driver would
        DataSource failsFirst = new DelegatingDataSource(new DriverManagerDataSource(url)) {
            @Override
            public Connection getConnection() throws SQLException {
                if (connections.incrementAndGet() == 1) {
                    throw new StackOverflowError("on purpose");
                }
                return super.getConnection();
            }
        };
        // this instance's own listener says it listens; it need not run for the sender
        NoticeListener listener = new NoticeListener(new WakeupSettings(), new WorkSignals(), failsFirst, null,
                new SimpleMeterRegistry(), new DatabaseSettings(), instance("here")) {
            @Override
            public boolean isListening() { return true; }
        };
        WorkNotices notices = new WorkNotices(new WorkSignals(), listener, failsFirst, instance("here"));
        try (Connection elsewhere = DriverManager.getConnection(url); Statement listen = elsewhere.createStatement()) {
            listen.execute("LISTEN " + WorkChannels.VALIDATION);
            notices.afterCommit(WorkChannels.VALIDATION);
            await().atMost(Duration.ofSeconds(10)).until(() -> connections.get() >= 1);
            PGConnection pg = elsewhere.unwrap(PGConnection.class);
            // told again until the other instance hears it: what was told during the failed send is dropped
            await().atMost(Duration.ofSeconds(15)).until(() -> {
                notices.afterCommit(WorkChannels.VALIDATION);
                var heard = pg.getNotifications(200);
                return heard != null && heard.length > 0;
            });
        } finally {
            notices.stop();
        }
    }
}
