package dev.ingestor.config;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Puts {@code ingestor.database.*} on every connection pool of the app (the embedded default's and the one Spring
 * Boot builds for an external server) before its first connection: PostgreSQL's {@code statement_timeout} and
 * {@code lock_timeout} as startup options of each connection, so they hold for every statement in every
 * transaction on it, and pgjdbc's {@code socketTimeout}. Refuses to start when the socket timeout would cut a
 * statement the server is still letting run: the server's cancel leaves the connection usable and answers a
 * clear SQLState (57014), a cut socket loses the connection.
 *
 * <p>Options a deployment sets itself ({@code spring.datasource.hikari.data-source-properties.options}) are kept,
 * after these, so they win where they set the same parameter.
 *
 * <p>Behind a pooler in transaction mode ({@code ingestor.database.transaction-pooler}) the connections carry no
 * startup option (the pooler refuses the connection) and prepare no statement on the server (the next
 * transaction may run on another session, which does not know it); the role carries the limits instead, and
 * {@link RoleTimeoutsCheck} says at start when it does not.
 */
@Component
public class DatabaseTimeouts implements BeanPostProcessor {

    /**
     * Lifts the time limits for the rest of the transaction under way on {@code jdbc}: for the few statements whose
     * work grows with what a supplier sent rather than with a batch size (deleting the quarantine of a file of
     * millions of bad records, a retention batch of such jobs), which must finish however long they take. Both limits:
     * the server's statement time limit, and the driver's socket time limit, which would otherwise close the
     * connection under the statement after {@code ingestor.database.socket-timeout} and roll it back, every time. The
     * socket's becomes {@link #LONG_WORK_SOCKET_TIMEOUT}, not none: a server that stops answering is still given up
     * on. The pool puts the socket limit back when the connection returns to it.
     */
    public static void noTimeLimitInThisTransaction(JdbcTemplate jdbc) {
        jdbc.execute((ConnectionCallback<Void>) connection -> {
            noTimeLimitInThisTransaction(connection, LONG_WORK_SOCKET_TIMEOUT);
            return null;
        });
    }

    /**
     * The same on {@code connection}, in a transaction, with {@code socket} as the driver's limit (zero: none, as
     * migrations have).
     */
    static void noTimeLimitInThisTransaction(Connection connection, Duration socket) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET LOCAL statement_timeout = 0");
        }
        connection.setNetworkTimeout(Runnable::run, (int) socket.toMillis());
    }

    /**
     * How long the driver waits for the server in a transaction whose time limits are lifted: far beyond any delete
     * of a supplier's records, and still an end for a connection whose server stopped answering (pgjdbc keeps no TCP
     * keepalive by default).
     */
    public static final Duration LONG_WORK_SOCKET_TIMEOUT = Duration.ofHours(1);

    static final String STATEMENT_TIMEOUT = "ingestor.database.statement-timeout";
    static final String LOCK_TIMEOUT = "ingestor.database.lock-timeout";
    static final String SOCKET_TIMEOUT = "ingestor.database.socket-timeout";

    private final long statementMillis;
    private final long lockMillis;
    private final long socketSeconds;
    private final boolean transactionPooler;

    @Autowired
    public DatabaseTimeouts(Environment environment) {
        // read from the environment, not from the DatabaseSettings bean: a post-processor is made before other beans
        this(Binder.get(environment).bind("ingestor.database", DatabaseSettings.class)
                .orElseGet(DatabaseSettings::new));
    }

    DatabaseTimeouts(DatabaseSettings limits) {
        this.statementMillis = millis(limits.getStatementTimeout(), STATEMENT_TIMEOUT);
        this.lockMillis = millis(limits.getLockTimeout(), LOCK_TIMEOUT);
        this.transactionPooler = limits.isTransactionPooler();
        Duration socket = limits.getSocketTimeout();
        long socketMillis = millis(socket, SOCKET_TIMEOUT);
        this.socketSeconds = (socketMillis + 999) / 1000;
        if (socketMillis > 0 && (statementMillis == 0 || socketSeconds * 1000 <= statementMillis)) {
            throw new IllegalStateException(SOCKET_TIMEOUT + "=" + socket + " would close a connection whose statement"
                    + " the server is still letting run (" + STATEMENT_TIMEOUT + "=" + limits.getStatementTimeout()
                    + "): set " + SOCKET_TIMEOUT + " longer than " + STATEMENT_TIMEOUT + " (whole seconds), or 0");
        }
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof HikariDataSource pool) {
            apply(pool);
        }
        return bean;
    }

    /**
     * Sets the limits on a pool that has not made a connection yet. A limit of 0 adds nothing, so with all three at
     * 0 the connections carry no startup option at all (a pooler such as PgBouncer in transaction mode refuses one).
     */
    public void apply(HikariDataSource pool) {
        if (socketSeconds > 0) {
            pool.addDataSourceProperty("socketTimeout", Long.toString(socketSeconds));
        }
        if (transactionPooler) {
            pool.getDataSourceProperties().putIfAbsent("prepareThreshold", "0");
            return;
        }
        String options = (statementMillis > 0 ? "-c statement_timeout=" + statementMillis + " " : "")
                + (lockMillis > 0 ? "-c lock_timeout=" + lockMillis + " " : "");
        String own = pool.getDataSourceProperties().getProperty("options");
        if (own != null && !own.isBlank()) {
            options = options + own.trim();
        }
        if (!options.isBlank()) {
            pool.addDataSourceProperty("options", options.trim());
        }
    }

    /** The statement time limit in milliseconds, 0 for none. */
    long statementMillis() {
        return statementMillis;
    }

    /** The lock wait limit in milliseconds, 0 for none. */
    long lockMillis() {
        return lockMillis;
    }

    boolean transactionPooler() {
        return transactionPooler;
    }

    private static long millis(Duration duration, String property) {
        if (duration == null || duration.isNegative()) {
            throw new IllegalStateException(property + " must be 0 (no limit) or a positive duration, not " + duration);
        }
        // a limit under a millisecond would be read as none
        return duration.isZero() ? 0 : Math.max(1, duration.toMillis());
    }
}
