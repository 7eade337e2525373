package dev.ingestor.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.EOFException;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.net.ConnectException;
import java.net.SocketException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.ingestor.support.SlowTest;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;
import org.postgresql.util.ServerErrorMessage;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Each way a database outage reaches the application, produced by the real parts it passes through (pgjdbc's
 * exceptions, HikariCP's pool, Spring's JdbcTransactionManager as Spring Boot configures it, JdbcTemplate, the
 * routes' TransactionPolicy) over a scripted JDBC connection that fails the way a stopped server makes it fail.
 */
class TransientFailuresTest {

    private final Script script = new Script();
    private HikariDataSource pool;

    @AfterEach
    void closePool() {
        if (pool != null) {
            pool.close();
        }
    }

    @Test
    void passingFailuresAreTransient() {
        assertThat(TransientFailures.isTransient(new CannotAcquireLockException("deadlock"))).isTrue();
        assertThat(TransientFailures.isTransient(new RuntimeException(new SQLException("gone", "08006")))).isTrue();
        assertThat(TransientFailures.isTransient(new SQLException("terminated", "57P01"))).isTrue();
        assertThat(TransientFailures.isTransient(new SQLException("serialization", "40001"))).isTrue();
        assertThat(TransientFailures.isTransient(new IOException("disk"))).isTrue();
        TransactionSystemException rollbackFailed = new TransactionSystemException("rollback failed",
                new SQLException("closed", "08003"));
        assertThat(TransientFailures.isTransient(rollbackFailed)).isTrue();
    }

    /**
     * A statement given up on by ingestor.database.* as pgjdbc raises it, before Spring translates it (a commit, a
     * rollback, a caller of the raw connection): cancelled by statement_timeout, or past lock_timeout.
     */
    @Test
    void aStatementGivenUpOnByATimeLimitIsTransient() {
        assertThat(TransientFailures.isTransient(new PSQLException(new ServerErrorMessage(
                "SERROR\0C57014\0Mcanceling statement due to statement timeout\0")))).isTrue();
        assertThat(TransientFailures.isTransient(new PSQLException(new ServerErrorMessage(
                "SERROR\0C55P03\0Mcanceling statement due to lock timeout\0")))).isTrue();
    }

    /**
     * A supplier's hook whose own database statement (camel-sql over a JdbcTemplate) meets a server that ends its
     * session (a restart, a failover, pg_terminate_backend) or a connection that breaks: no verdict on the record.
     * A statement that is wrong, or given up on by its own time limit, is one.
     */
    @Test
    void aHooksDatabaseSessionLostIsAConnectionLossAndItsMistakesAreNot() {
        script.onStatement = new PSQLException(new ServerErrorMessage(
                "SFATAL\0C57P01\0Mterminating connection due to administrator command\0"));
        Throwable terminated = catchThrowable(() -> new JdbcTemplate(pool()).update("UPDATE t SET x = ?", 1));
        assertThat(TransientFailures.isConnectionLoss(terminated)).as("%s", terminated).isTrue();

        script.onStatement = new PSQLException("An I/O error occurred while sending to the backend.",
                PSQLState.CONNECTION_FAILURE, new EOFException());
        Throwable broken = catchThrowable(() -> new JdbcTemplate(pool()).update("UPDATE t SET x = ?", 1));
        assertThat(TransientFailures.isConnectionLoss(broken)).as("%s", broken).isTrue();

        script.onStatement = new PSQLException(new ServerErrorMessage("SERROR\0C42601\0Msyntax error\0"));
        assertThat(TransientFailures.isConnectionLoss(
                catchThrowable(() -> new JdbcTemplate(pool()).update("UPDATE t SET x = ?", 1)))).isFalse();
        assertThat(TransientFailures.isConnectionLoss(new PSQLException(new ServerErrorMessage(
                "SERROR\0C57014\0Mcanceling statement due to statement timeout\0")))).isFalse();
    }

    @Test
    void mistakesAreNot() {
        assertThat(TransientFailures.isTransient(new DataIntegrityViolationException("check"))).isFalse();
        assertThat(TransientFailures.isTransient(new SQLException("syntax", "42601"))).isFalse();
        assertThat(TransientFailures.isTransient(new IllegalStateException("bug"))).isFalse();
        assertThat(TransientFailures.isTransient(new SQLException("some driver problem"))).isFalse();
        assertThat(TransientFailures.isTransient(null)).isFalse();
    }

    /** The server went away during COMMIT: Hikari marks the connection broken, so the rollback fails too. */
    @Test
    void aCommitThatFailsAndWhoseRollbackFailsIsTransient() {
        script.onCommit = new PSQLException("An I/O error occurred while sending to the backend.",
                PSQLState.CONNECTION_FAILURE, new SocketException("Connection reset"));

        Throwable failure = catchThrowable(() -> transactions().executeWithoutResult(status -> update()));

        // the commit's own failure is only logged by Spring; the caller sees the rollback's
        assertThat(failure).isInstanceOf(TransactionSystemException.class).hasMessageContaining("JDBC rollback failed");
        assertThat(failure.getCause()).isExactlyInstanceOf(SQLException.class).hasMessage("Connection is closed");
        assertThat(((SQLException) failure.getCause()).getSQLState()).isNull();
        assertThat(TransientFailures.isTransient(failure)).isTrue();
    }

    /** A fast shutdown terminates every session: FATAL 57P01 on COMMIT, then the closed connection. */
    @Test
    void aCommitOnATerminatedSessionIsTransient() {
        script.onCommit = new PSQLException(new ServerErrorMessage(
                "SFATAL\0C57P01\0Mterminating connection due to administrator command\0"));

        Throwable failure = catchThrowable(() -> transactions().executeWithoutResult(status -> update()));

        assertThat(failure).isInstanceOf(TransactionSystemException.class);
        assertThat(TransientFailures.isTransient(failure)).isTrue();
    }

    /** A serializable transaction that PostgreSQL refuses at COMMIT: the rollback works, Spring translates. */
    @Test
    void aSerializationFailureAtCommitIsTransient() {
        script.onCommit = new PSQLException(new ServerErrorMessage("SERROR\0C40001\0Mcould not serialize access due to"
                + " read/write dependencies among transactions\0"));
        script.rollbackWorks = true;

        Throwable failure = catchThrowable(() -> transactions().executeWithoutResult(status -> update()));

        assertThat(failure).isInstanceOf(org.springframework.dao.PessimisticLockingFailureException.class);
        assertThat(TransientFailures.isTransient(failure)).isTrue();
    }

    /**
     * The route's transaction policy: a statement hits the dead connection, the policy marks the transaction
     * rollback-only, and the rollback on the closed connection replaces the statement's failure on the exchange.
     */
    @Test
    void aRouteTransactionWhoseRollbackFailsIsTransient() throws Exception {
        script.onStatement = new PSQLException("An I/O error occurred while sending to the backend.",
                PSQLState.CONNECTION_FAILURE, new EOFException());
        Processor policy = new TransactionPolicy(transactionManager()).wrap(null, exchange -> update());
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            Exchange exchange = new DefaultExchange(camel);

            Throwable failure = catchThrowable(() -> policy.process(exchange));

            assertThat(failure).isInstanceOf(TransactionSystemException.class)
                    .hasMessageContaining("JDBC rollback failed");
            assertThat(TransientFailures.isTransient(failure)).isTrue();
        }
    }

    /** TransactionTemplate: the callback fails on the broken connection and the rollback fails after it. */
    @Test
    void aCallbackFailureWhoseRollbackFailsIsTransient() {
        script.onStatement = new PSQLException("An I/O error occurred while sending to the backend.",
                PSQLState.CONNECTION_FAILURE, new EOFException());

        Throwable failure = catchThrowable(() -> transactions().executeWithoutResult(status -> {
            update();
        }));

        assertThat(failure).isInstanceOf(TransactionSystemException.class);
        assertThat(((TransactionSystemException) failure).getApplicationException()).isNotNull();
        assertThat(TransientFailures.isTransient(failure)).isTrue();
    }

    /** A statement after the connection broke inside a transaction: Hikari's closed stand-in, untranslatable. */
    @Test
    void aStatementOnAConnectionHikariClosedIsTransient() {
        script.onStatement = new PSQLException("An I/O error occurred while sending to the backend.",
                PSQLState.CONNECTION_FAILURE, new EOFException());
        script.rollbackWorks = true;
        AtomicReference<Throwable> second = new AtomicReference<>();

        catchThrowable(() -> transactions().executeWithoutResult(status -> {
            catchThrowable(this::update);
            second.set(catchThrowable(this::update));
        }));

        assertThat(second.get()).isInstanceOf(UncategorizedSQLException.class);
        assertThat(second.get().getCause()).hasMessage("Connection is closed");
        assertThat(TransientFailures.isTransient(second.get())).isTrue();
    }

    /** The server is down: Hikari waits connection-timeout for a connection, then gives up. */
    // slow tier: a connection timeout waited out
    @SlowTest
    @Test
    void noConnectionFromThePoolIsTransient() {
        script.onConnect = new PSQLException(
                "Connection to localhost:5432 refused. Check that the hostname and port are"
                        + " correct and that the postmaster is accepting TCP/IP connections.",
                PSQLState.CONNECTION_UNABLE_TO_CONNECT, new ConnectException("Connection refused"));

        Throwable inTransaction = catchThrowable(() -> transactions().executeWithoutResult(status -> update()));
        Throwable statement = catchThrowable(() -> new JdbcTemplate(pool()).update("UPDATE t SET x = ?", 1));

        assertThat(inTransaction).isInstanceOf(CannotCreateTransactionException.class)
                .hasRootCauseInstanceOf(ConnectException.class);
        assertThat(inTransaction.getCause()).isInstanceOf(java.sql.SQLTransientConnectionException.class)
                .hasMessageContaining("Connection is not available");
        assertThat(statement).isInstanceOf(CannotGetJdbcConnectionException.class);
        assertThat(TransientFailures.isTransient(inTransaction)).isTrue();
        assertThat(TransientFailures.isTransient(statement)).isTrue();
    }

    /** The server is starting up again (57P03) and does not take connections yet. */
    @Test
    void aServerStillStartingIsTransient() {
        script.onConnect = new PSQLException(
                new ServerErrorMessage("SFATAL\0C57P03\0Mthe database system is starting up\0"));

        Throwable failure = catchThrowable(() -> new JdbcTemplate(pool()).update("UPDATE t SET x = ?", 1));

        assertThat(failure).isInstanceOf(CannotGetJdbcConnectionException.class);
        assertThat(TransientFailures.isTransient(failure)).isTrue();
    }

    @Test
    void anUnexpectedRollbackIsTransientOnlyWhenALostConnectionCausedIt() {
        assertThat(TransientFailures.isTransient(new UnexpectedRollbackException("rolled back",
                new PSQLException("This connection has been closed.", PSQLState.CONNECTION_DOES_NOT_EXIST)))).isTrue();
        // marked rollback-only by a participant for its own reasons: nothing says a retry would do better
        assertThat(TransientFailures.isTransient(new UnexpectedRollbackException(
                "Transaction rolled back because it has been marked as rollback-only"))).isFalse();
    }

    private void update() {
        new JdbcTemplate(pool()).update("UPDATE t SET x = ?", 1);
    }

    private TransactionTemplate transactions() {
        return new TransactionTemplate(transactionManager());
    }

    /** What Spring Boot configures for a DataSource: the translating JdbcTransactionManager. */
    private JdbcTransactionManager transactionManager() {
        return new JdbcTransactionManager(pool());
    }

    private HikariDataSource pool() {
        if (pool == null) {
            HikariConfig config = new HikariConfig();
            config.setDataSource(script.dataSource());
            // long enough for a loaded machine to make the first connection, short enough for the refusal tests
            config.setConnectionTimeout(1500);
            config.setInitializationFailTimeout(-1);
            config.setMaximumPoolSize(1);
            config.setMinimumIdle(0);
            pool = new HikariDataSource(config);
        }
        return pool;
    }

    /** A JDBC connection that works until told how to fail; every other call answers as a healthy one would. */
    static final class Script {
        volatile SQLException onConnect;
        volatile SQLException onStatement;
        volatile SQLException onCommit;
        volatile boolean rollbackWorks;

        DataSource dataSource() {
            InvocationHandler ds = (proxy, method, args) -> switch (method.getName()) {
                case "getConnection" -> {
                    if (onConnect != null) {
                        throw onConnect;
                    }
                    yield connection();
                }
                case "getLogWriter" -> new PrintWriter(System.err);
                case "getParentLogger" -> Logger.getGlobal();
                default -> defaultValue(method.getReturnType());
            };
            return (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class},
                    ds);
        }

        private Connection connection() {
            InvocationHandler handler = (proxy, method, args) -> switch (method.getName()) {
                case "prepareStatement", "createStatement" -> {
                    if (onStatement != null) {
                        throw onStatement;
                    }
                    yield statement();
                }
                case "commit" -> {
                    if (onCommit != null) {
                        throw onCommit;
                    }
                    yield null;
                }
                case "rollback" -> {
                    if (!rollbackWorks && (onCommit != null || onStatement != null)) {
                        throw new PSQLException("This connection has been closed.",
                                PSQLState.CONNECTION_DOES_NOT_EXIST);
                    }
                    yield null;
                }
                case "isValid" -> true;
                case "getTransactionIsolation" -> Connection.TRANSACTION_READ_COMMITTED;
                case "getAutoCommit" -> true;
                default -> defaultValue(method.getReturnType());
            };
            return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                    handler);
        }

        private PreparedStatement statement() {
            InvocationHandler handler = (proxy, method, args) -> switch (method.getName()) {
                case "executeUpdate", "getUpdateCount" -> 1;
                default -> defaultValue(method.getReturnType());
            };
            return (PreparedStatement) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {PreparedStatement.class}, handler);
        }

        private static Object defaultValue(Class<?> type) {
            if (type == boolean.class) {
                return false;
            }
            if (type == int.class) {
                return 0;
            }
            if (type == long.class) {
                return 0L;
            }
            return null;
        }
    }

}
