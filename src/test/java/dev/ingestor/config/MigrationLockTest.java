package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ingestor.support.IngestorTestSupport;
import org.flywaydb.core.Flyway;
import org.flywaydb.database.postgresql.PostgreSQLConfigurationExtension;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Instances that start while another runs the migrations wait for its lock, however long they take (minutes on years
 * of data): Flyway's default gives up after 50 tries a second apart and fails the start, and a deployment of several
 * instances then has all but one crash-looping through a long migration.
 */
class MigrationLockTest extends IngestorTestSupport {

    @Autowired
    private Flyway flyway;

    @Test
    void anInstanceStartingWhileAnotherMigratesWaitsForItsLockWithoutEnd() {
        assertThat(flyway.getConfiguration().getLockRetryCount()).as("spring.flyway.lock-retry-count").isEqualTo(-1);
    }

    /** Held by the session on a direct connection, not idle in a transaction (MigrationLockIdleTimeoutTest). */
    @Test
    void theLockIsTheSessionsOnADirectConnection() {
        assertThat(flyway.getConfiguration().getPluginRegister().getExact(PostgreSQLConfigurationExtension.class)
                .isTransactionalLock()).isFalse();
    }
}
