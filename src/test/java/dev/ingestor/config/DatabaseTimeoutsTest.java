package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import dev.ingestor.failure.TransientFailures;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestPostgres;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.util.PSQLException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The time limits of ingestor.database.* on a real PostgreSQL, through a pool as the app builds it: a statement
 * past statement-timeout and a lock wait past lock-timeout are cancelled by the server (the connection stays
 * usable), a server that stops answering is given up on after socket-timeout, each a transient failure; a
 * migration at start runs without them; limits that contradict each other refuse to start.
 */
@Timeout(60)
class DatabaseTimeoutsTest {

    private final List<HikariDataSource> pools = new ArrayList<>();

    @AfterEach
    void closePools() {
        pools.forEach(HikariDataSource::close);
    }

    @Test
    void aStatementPastTheStatementTimeoutIsCancelledAsATransientFailureAndItsConnectionStaysUsable() {
        HikariDataSource pool = pool("ingestor_timeouts", limits("300ms", "0s", "5s"), 1);
        JdbcTemplate jdbc = new JdbcTemplate(pool);
        assertThat(jdbc.queryForObject("SHOW statement_timeout", String.class)).isEqualTo("300ms");

        long start = System.nanoTime();
        Throwable failure = catchThrowable(() -> jdbc.queryForObject("SELECT pg_sleep(3)", String.class));

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(2500));
        assertThat(sqlState(failure)).isEqualTo("57014");
        assertThat(TransientFailures.isTransient(failure)).isTrue();
        assertThat(jdbc.queryForObject("SELECT 1", Integer.class)).as("the same, only connection").isEqualTo(1);
    }

    // slow tier: a lock wait waited out
    @SlowTest
    @Test
    void aLockWaitPastTheLockTimeoutIsGivenUpAsATransientFailure() throws Exception {
        HikariDataSource pool = pool("ingestor_timeouts", limits("10s", "300ms", "20s"), 2);
        new JdbcTemplate(pool).execute("CREATE TABLE IF NOT EXISTS locked (id int)");
        try (Connection holder = pool.getConnection(); Statement lock = holder.createStatement()) {
            holder.setAutoCommit(false);
            lock.execute("LOCK TABLE locked IN ACCESS EXCLUSIVE MODE");

            long start = System.nanoTime();
            // on a thread of its own, so that a wait nothing bounds fails this test instead of hanging it
            CompletableFuture<Throwable> waiting = CompletableFuture.supplyAsync(
                    () -> catchThrowable(() -> new JdbcTemplate(pool).queryForList("SELECT id FROM locked")));
            try {
                Throwable failure = waiting.get(5, TimeUnit.SECONDS);

                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(5000));
                assertThat(sqlState(failure)).isEqualTo("55P03");
                assertThat(TransientFailures.isTransient(failure)).isTrue();
            } finally {
                holder.rollback();
            }
        }
    }

    /** A server that stops answering: a statement the server lets run past the socket timeout, as a hang looks. */
    // slow tier: a socket timeout waited out
    @SlowTest
    @Test
    void aServerThatStopsAnsweringIsGivenUpOnAfterTheSocketTimeoutAsATransientFailure() throws Exception {
        HikariDataSource pool = pool("ingestor_timeouts", limits("1s", "0s", "2s"), 1);
        Throwable failure;
        long start = System.nanoTime();
        try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            statement.execute("SET LOCAL statement_timeout = 0");
            failure = catchThrowable(() -> statement.execute("SELECT pg_sleep(10)"));
        }

        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        assertThat(waited).isGreaterThanOrEqualTo(Duration.ofMillis(1900)).isLessThan(Duration.ofSeconds(8));
        assertThat(failure).isInstanceOf(PSQLException.class)
                .hasRootCauseInstanceOf(java.net.SocketTimeoutException.class);
        assertThat(TransientFailures.isTransient(failure)).isTrue();
        assertThat(new JdbcTemplate(pool).queryForObject("SELECT 1", Integer.class)).as("a new connection in its place")
                .isEqualTo(1);
    }

    /**
     * A transaction whose work grows with what a supplier sent (a retention batch, a quarantine's delete) runs without
     * either limit, the socket's too, which would otherwise close its connection and roll it back every time; the
     * next transaction on the same pooled connection has both again.
     */
    // slow tier: a socket timeout waited out
    @SlowTest
    @Test
    void aTransactionWithoutTimeLimitsOutlastsTheSocketTimeoutAndTheNextHasItAgain() {
        HikariDataSource pool = pool("ingestor_timeouts", limits("1s", "0s", "2s"), 1);
        JdbcTemplate jdbc = new JdbcTemplate(pool);
        TransactionTemplate transactions = new TransactionTemplate(new JdbcTransactionManager(pool));

        String slept = transactions.execute(status -> {
            DatabaseTimeouts.noTimeLimitInThisTransaction(jdbc);
            return jdbc.queryForObject("SELECT pg_sleep(3)::text", String.class);
        });
        assertThat(slept).as("past both limits").isEmpty();

        long start = System.nanoTime();
        Throwable failure = catchThrowable(() -> transactions.executeWithoutResult(status -> {
            jdbc.execute("SET LOCAL statement_timeout = 0");
            jdbc.queryForObject("SELECT pg_sleep(4)::text", String.class);
        }));
        // the socket closed under the statement (its rollback then fails too, which is what Spring throws)
        assertThat(failure).as("the socket limit back on the same connection").isNotNull();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1900))
                .isLessThan(Duration.ofMillis(3900));
    }

    @Test
    void optionsADeploymentSetsAreKeptAfterTheLimits() {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(TestPostgres.jdbcUrl("ingestor_timeouts"));
        pool.setMaximumPoolSize(1);
        pool.addDataSourceProperty("options", "-c work_mem=7MB");
        new DatabaseTimeouts(limits("4s", "2s", "9s")).apply(pool);
        pools.add(pool);
        JdbcTemplate jdbc = new JdbcTemplate(pool);

        assertThat(jdbc.queryForObject("SHOW work_mem", String.class)).isEqualTo("7MB");
        assertThat(jdbc.queryForObject("SHOW statement_timeout", String.class)).isEqualTo("4s");
        assertThat(jdbc.queryForObject("SHOW lock_timeout", String.class)).isEqualTo("2s");
        assertThat(pool.getDataSourceProperties().getProperty("socketTimeout")).isEqualTo("9");
    }

    /** Limits of 0 add nothing to the connections: no startup option (a pooler may refuse one), no socket timeout. */
    @Test
    void limitsOfZeroAddNoOptionAndNoSocketTimeout() {
        HikariDataSource pool = new HikariDataSource();
        new DatabaseTimeouts(limits("0s", "0s", "0s")).apply(pool);
        assertThat(pool.getDataSourceProperties()).doesNotContainKeys("options", "socketTimeout");
        pool.addDataSourceProperty("options", "-c work_mem=7MB");
        new DatabaseTimeouts(limits("0s", "0s", "0s")).apply(pool);
        assertThat(pool.getDataSourceProperties().getProperty("options")).isEqualTo("-c work_mem=7MB");
        pool.close();
    }

    /**
     * Behind a pooler in transaction mode: no startup option (the pooler refuses the connection), no statement
     * prepared on a server session (the next transaction may run on another), a deployment's own threshold kept.
     */
    @Test
    void behindATransactionPoolerTheConnectionsCarryNoOptionAndPrepareNothing() {
        DatabaseSettings settings = limits("30s", "2s", "60s");
        settings.setTransactionPooler(true);
        HikariDataSource pool = new HikariDataSource();
        new DatabaseTimeouts(settings).apply(pool);
        assertThat(pool.getDataSourceProperties()).doesNotContainKey("options")
                .containsEntry("prepareThreshold", "0").containsEntry("socketTimeout", "60");
        pool.close();

        HikariDataSource own = new HikariDataSource();
        own.addDataSourceProperty("prepareThreshold", "-1");
        new DatabaseTimeouts(settings).apply(own);
        assertThat(own.getDataSourceProperties()).containsEntry("prepareThreshold", "-1");
        own.close();
    }

    /** A migration longer than both limits runs through; the limits hold again for the pool afterwards. */
    // slow tier: a slow migration
    @SlowTest
    @Test
    void aMigrationAtStartRunsWithoutTheLimitsAndTheyHoldAgainAfterIt() {
        HikariDataSource pool = pool("ingestor_slow_migration", limits("300ms", "0s", "1s"), 2);
        Flyway flyway = Flyway.configure().dataSource(pool).locations("classpath:db/slow-migration")
                .callbacks(new MigrationsWithoutTimeouts()).load();

        assertThat(flyway.migrate().migrationsExecuted).isEqualTo(1);

        JdbcTemplate jdbc = new JdbcTemplate(pool);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM slow_migration_done", Long.class)).isZero();
        for (int i = 0; i < 2; i++) {
            assertThat(jdbc.queryForObject("SHOW statement_timeout", String.class)).isEqualTo("300ms");
            assertThat(sqlState(catchThrowable(() -> jdbc.queryForObject("SELECT pg_sleep(2)", String.class))))
                    .isEqualTo("57014");
        }
    }

    @Test
    void aSocketTimeoutThatWouldCutAStatementTheServerStillRunsIsRefusedNamingBothProperties() {
        for (DatabaseSettings refused : List.of(limits("30s", "0s", "30s"), limits("30s", "0s", "10s"),
                limits("0s", "0s", "60s"), limits("3s", "0s", "2500ms"))) {
            assertThatThrownBy(() -> new DatabaseTimeouts(refused))
                    .hasMessageContaining("ingestor.database.socket-timeout=")
                    .hasMessageContaining("ingestor.database.statement-timeout=");
        }
        new DatabaseTimeouts(limits("30s", "0s", "31s"));
        new DatabaseTimeouts(limits("2500ms", "0s", "2900ms"));
        new DatabaseTimeouts(limits("30s", "0s", "0s"));
        new DatabaseTimeouts(limits("0s", "0s", "0s"));
        assertThatThrownBy(() -> new DatabaseTimeouts(limits("-1s", "0s", "0s")))
                .hasMessageContaining("ingestor.database.statement-timeout");
    }

    private HikariDataSource pool(String database, DatabaseSettings limits, int size) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(TestPostgres.jdbcUrl(database));
        pool.setMaximumPoolSize(size);
        pool.setConnectionTimeout(5000);
        new DatabaseTimeouts(limits).apply(pool);
        pools.add(pool);
        return pool;
    }

    private static DatabaseSettings limits(String statement, String lock, String socket) {
        DatabaseSettings limits = new DatabaseSettings();
        limits.setStatementTimeout(org.springframework.boot.convert.DurationStyle.detectAndParse(statement));
        limits.setLockTimeout(org.springframework.boot.convert.DurationStyle.detectAndParse(lock));
        limits.setSocketTimeout(org.springframework.boot.convert.DurationStyle.detectAndParse(socket));
        return limits;
    }

    private static String sqlState(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                return sql.getSQLState();
            }
        }
        return null;
    }
}
