package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;

import com.zaxxer.hikari.HikariDataSource;
import dev.ingestor.IngestorApplication;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestKafka;
import dev.ingestor.support.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.mock.env.MockEnvironment;

/** One key's requests in flight can never hold every database connection: the pool is larger, or no start. */
@Timeout(120)
class PoolAboveKeyConcurrencyTest {

    @Test
    void aPoolNoLargerThanOneKeysConcurrencyIsRefusedNamingBothProperties() {
        PoolAboveKeyConcurrency check = new PoolAboveKeyConcurrency(new MockEnvironment()
                .withProperty("ingestor.http.limits.max-concurrent-per-key", "20"));
        for (int poolSize : new int[] {10, 20}) {
            HikariDataSource pool = new HikariDataSource();
            pool.setMaximumPoolSize(poolSize);
            assertThatThrownBy(() -> check.postProcessAfterInitialization(pool, "dataSource"))
                    .hasMessageContaining("spring.datasource.hikari.maximum-pool-size=" + poolSize)
                    .hasMessageContaining("ingestor.http.limits.max-concurrent-per-key=20");
        }
        HikariDataSource pool = new HikariDataSource();
        pool.setMaximumPoolSize(21);
        assertThatCode(() -> check.postProcessAfterInitialization(pool, "dataSource")).doesNotThrowAnyException();
    }

    /** A deployment that still sets the former size, which wins, is told that one, not the size it did not set. */
    @Test
    void aPoolSizedByTheFormerPropertyIsRefusedNamingIt() {
        PoolAboveKeyConcurrency check = new PoolAboveKeyConcurrency(new MockEnvironment()
                .withProperty("ingestor.embedded.postgres.pool-size", "20")
                .withProperty("spring.datasource.hikari.maximum-pool-size", "46"));
        HikariDataSource pool = new HikariDataSource();
        pool.setMaximumPoolSize(20);
        assertThatThrownBy(() -> check.postProcessAfterInitialization(pool, "dataSource"))
                .hasMessageStartingWith("ingestor.embedded.postgres.pool-size=20 (deprecated, read over"
                        + " spring.datasource.hikari.maximum-pool-size: remove it) is not above"
                        + " ingestor.http.limits.max-concurrent-per-key=32");
    }

    @Test
    void withoutTheLimitSetTheDefaultOfOneKeyIsChecked() {
        PoolAboveKeyConcurrency check = new PoolAboveKeyConcurrency(new MockEnvironment());
        HikariDataSource hikariDefault = new HikariDataSource();
        assertThat(hikariDefault.getMaximumPoolSize()).as("HikariCP's own default").isEqualTo(10);
        assertThatThrownBy(() -> check.postProcessAfterInitialization(hikariDefault, "dataSource"))
                .hasMessageContaining("ingestor.http.limits.max-concurrent-per-key=32");
    }

    /** The shipped defaults pass, and the app refuses to start with a pool of Hikari's own default of 10. */
    // slow tier: starts an application
    @SlowTest
    @Test
    void theAppRefusesToStartWithAPoolNoLargerThanOneKeysConcurrency() throws Exception {
        Path work = Files.createTempDirectory("ingestor-pool-");
        assertThatThrownBy(() -> new SpringApplicationBuilder(IngestorApplication.class).run(
                "--server.port=0",
                "--spring.datasource.url=" + TestPostgres.jdbcUrl("ingestor_pool_check"),
                "--spring.datasource.hikari.maximum-pool-size=10",
                "--ingestor.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
                "--ingestor.data-dir=" + work.resolve("data"),
                "--ingestor.inbox-dir=" + work.resolve("inbox")).close())
                .hasStackTraceContaining("spring.datasource.hikari.maximum-pool-size=10 is not above"
                        + " ingestor.http.limits.max-concurrent-per-key=32");
    }
}
