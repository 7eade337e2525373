package dev.ingestor.operations;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.sql.Connection;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;

import dev.ingestor.config.KafkaSettings;
import dev.ingestor.job.JobCounts;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A scrape while the database hangs or is away: each gauge answers at once with its last value. Before, each of
 * the eleven gauges waited for a connection (the pool's connection timeout, 20 s), so a scrape took minutes and
 * Prometheus lost every other metric of the instance with it.
 */
class BacklogGaugesTest {

    /** A database that never answers: every connection asked for waits until the test lets go. */
    private static final class HangingDatabase implements DataSource {
        final CountDownLatch released = new CountDownLatch(1);
        volatile int asked;

        @Override
        public Connection getConnection() {
            asked++;
            try {
                released.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new org.springframework.jdbc.CannotGetJdbcConnectionException("the database is away");
        }

        @Override
        public Connection getConnection(String user, String password) { return getConnection(); }
        @Override
        public PrintWriter getLogWriter() { return null; }
        @Override
        public void setLogWriter(PrintWriter out) {}
        @Override
        public void setLoginTimeout(int seconds) {}
        @Override
        public int getLoginTimeout() { return 0; }
        @Override
        public Logger getParentLogger() { return Logger.getGlobal(); }
        @Override
        public <T> T unwrap(Class<T> type) { return null; }
        @Override
        public boolean isWrapperFor(Class<?> type) { return false; }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aScrapeWhileTheDatabaseHangsReadsTheLastValuesAndAsksTheDatabaseOnce() {
        HangingDatabase database = new HangingDatabase();
        JdbcTemplate jdbc = new JdbcTemplate(database);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        BacklogGauges gauges = new BacklogGauges(registry, jdbc, new KafkaSettings(), new JobCounts(jdbc));
        try {
            for (int scrape = 0; scrape < 3; scrape++) {
                for (Gauge gauge : registry.find("ingestor.jobs").gauges()) {
                    assertThat(gauge.value()).isZero();
                }
                registry.find("ingestor.outbox.pending").gauges().forEach(Gauge::value);
                registry.find("ingestor.outbox.lag").gauges().forEach(Gauge::value);
            }
            org.awaitility.Awaitility.await().until(() -> database.asked == 1);
            assertThat(database.asked).as("connections asked for by three scrapes of every gauge").isEqualTo(1);
        } finally {
            database.released.countDown();
            gauges.stop();
        }
    }
}
