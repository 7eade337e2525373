package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;

import dev.ingestor.support.TestPostgres;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * A server whose {@code idle_in_transaction_session_timeout} (set on the role or the database by a DBA) is shorter
 * than a migration takes: Flyway's transaction-scoped lock sat idle in an open transaction on a connection of its
 * own while the migration ran, the server ended that session, the migration was rolled back and the next start ran
 * it again, whole, for ever (V13 takes a minute on a year of data).
 */
class MigrationLockIdleTimeoutTest {

    @Test
    void aMigrationLongerThanTheServersIdleTransactionLimitCompletes() throws Exception {
        migratesThroughAWaitLongerThan("idle_in_transaction_session_timeout");
    }

    /**
     * A server whose {@code idle_session_timeout} is shorter than a migration: the session lock is held by the
     * connection that runs the migrations, never idle while one runs, so that limit ends neither (were the lock on a
     * connection of its own, idle meanwhile, the server would end it and the start fail after the migrations that
     * committed).
     */
    @Test
    void aMigrationLongerThanTheServersIdleSessionLimitCompletes() throws Exception {
        migratesThroughAWaitLongerThan("idle_session_timeout");
    }

    /**
     * A database migrated to V21 whose server {@code setting} is 1 s migrates to the end while V22 waits 3 s for a
     * transaction on import_job, as a migration over years of jobs takes its time.
     */
    private static void migratesThroughAWaitLongerThan(String setting) throws Exception {
        String database = "migration_idle_" + System.nanoTime();
        DriverManagerDataSource dataSource = new DriverManagerDataSource(TestPostgres.jdbcUrl(database));
        Flyway.configure().dataSource(dataSource).target("21").load().migrate();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("ALTER DATABASE " + database + " SET " + setting + " = '1s'");
        whileAMigrationWaits(dataSource, jdbc, () -> {
            FluentConfiguration flyway = Flyway.configure().dataSource(dataSource);
            new MigrationLock(false).customize(flyway);
            flyway.load().migrate();
        }).join();

        assertThat(jdbc.queryForObject("SELECT max(version::int) FROM flyway_schema_history WHERE success",
                Integer.class)).isEqualTo(30);
    }

    /** Runs {@code migrate} while a transaction on import_job makes V22 wait 3 s; returns once it waits no more. */
    private static CompletableFuture<Void> whileAMigrationWaits(DriverManagerDataSource dataSource, JdbcTemplate jdbc,
            Runnable migrate) throws Exception {
        CompletableFuture<Void> migration;
        try (Connection holder = dataSource.getConnection(); Statement s = holder.createStatement()) {
            holder.setAutoCommit(false);
            s.execute("LOCK TABLE import_job IN ROW EXCLUSIVE MODE");
            migration = CompletableFuture.runAsync(migrate);
            while (jdbc.queryForObject("SELECT count(*) FROM pg_locks WHERE NOT granted"
                    + " AND relation = 'import_job'::regclass", Integer.class) == 0) {
                Thread.sleep(20);
            }
            s.execute("SELECT pg_sleep(3)");
            holder.rollback();
        }
        return migration;
    }

    @Test
    void instancesStartingAtOnceOnAnEmptyDatabaseMigrateOneAfterTheOther() {
        DriverManagerDataSource dataSource = new DriverManagerDataSource(
                TestPostgres.jdbcUrl("migration_at_once_" + System.nanoTime()));
        Runnable start = () -> {
            FluentConfiguration flyway = Flyway.configure().dataSource(dataSource).lockRetryCount(-1);
            new MigrationLock(false).customize(flyway);
            flyway.load().migrate();
        };
        CompletableFuture.allOf(CompletableFuture.runAsync(start), CompletableFuture.runAsync(start),
                CompletableFuture.runAsync(start)).join();

        assertThat(new JdbcTemplate(dataSource).queryForList("SELECT version FROM flyway_schema_history"
                + " WHERE version IS NOT NULL", String.class)).hasSize(30).doesNotHaveDuplicates();
    }
}
