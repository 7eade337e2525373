package dev.ingestor.failure;

import java.io.IOException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;

import org.apache.camel.Exchange;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.stereotype.Component;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.TransactionSystemException;

/**
 * The one answer to "will the same thing work if tried again later?": a lost or refused database connection,
 * a deadlock or serialization failure, a statement past its time limit, an I/O error, a Kafka timeout, a commit or
 * rollback that did not complete, and the product's own {@link TryAgainLaterException}s. The stages redeliver
 * these (error-handling.camel.yaml asks {@link #test(Exchange)} from an onWhen), and the HTTP API answers them with
 * 503 + Retry-After and never stores them as a request's outcome.
 *
 * <p>A failed commit leaves the outcome unknown (the server may have committed before the connection broke).
 * Retrying is still safe, because every write is keyed: a file by its content key, a batch by its
 * Idempotency-Key, a job step by its claim. So "unknown" is classed with "try again", never with "broken".
 */
@Component("transientFailures")
public class TransientFailures {

    /** HikariCP's answer on a connection it has found broken (or already closed): no SQLState at all. */
    private static final String HIKARI_CLOSED_CONNECTION = "Connection is closed";
    private static final String QUERY_CANCELED = "57014";
    private static final String LOCK_NOT_AVAILABLE = "55P03";

    public static boolean isTransient(Throwable error) {
        if (isConnectionLoss(error)) {
            return true;
        }
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof TransientDataAccessException || t instanceof DataAccessResourceFailureException
                    || t instanceof RecoverableDataAccessException || t instanceof CannotCreateTransactionException
                    || t instanceof SQLTransientException || t instanceof SQLRecoverableException
                    || t instanceof IOException || isKafkaRetriable(t) || isTransientSqlState(t)) {
                return true;
            }
            // the transaction manager could not commit or roll back: a SQL error it could translate would have
            // become a DataAccessException, so what is left is a connection that died under the transaction
            // (JDBC commit/rollback failed, "Connection is closed"); the outcome is unknown, and a retry is safe
            if (t instanceof TransactionSystemException) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /**
     * The narrower answer for code that calls out to others on a record's behalf (a supplier's hook): the other side
     * is away (a connection refused, reset or timed out, a host not found, no database connection, a database session
     * lost: SQLState class 08, or ended by the server, 57P01 to 57P03, as a restart or a failover ends them), or it is
     * the product's own {@link TryAgainLaterException}. An I/O error in general is not: it may as well be about what
     * was sent or read, and fail the same way every time; nor is a statement's own time limit (57014).
     */
    public static boolean isConnectionLoss(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.net.SocketException || t instanceof java.net.SocketTimeoutException
                    || t instanceof java.net.http.HttpTimeoutException || t instanceof java.net.UnknownHostException
                    || t instanceof CannotGetJdbcConnectionException
                    || t instanceof java.sql.SQLTransientConnectionException
                    || t instanceof SQLNonTransientConnectionException || isClosedPoolConnection(t)
                    || isLostDatabaseSession(t) || t instanceof TryAgainLaterException) {
                return true;
            }
        }
        return false;
    }

    private static boolean isLostDatabaseSession(Throwable t) {
        if (t instanceof SQLException sql && sql.getSQLState() != null) {
            String state = sql.getSQLState();
            return state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03");
        }
        return false;
    }

    /** For Camel predicates: the exception being handled, whether still on the exchange or already caught. */
    public boolean test(Exchange exchange) {
        Throwable error = exchange.getException();
        if (error == null) {
            error = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        }
        return isTransient(error);
    }

    /**
     * PostgreSQL's classes for "try again": 08 connection exception, 40 transaction rollback (serialization
     * failure, deadlock), 53 insufficient resources, 57P operator intervention (server shut down, terminated),
     * and a statement given up on by a time limit (ingestor.database.*): 57014 cancelled (statement_timeout) and
     * 55P03 lock not available (lock_timeout), what a database held up by a lock or an overload answers.
     */
    private static boolean isTransientSqlState(Throwable t) {
        if (t instanceof SQLException sql && sql.getSQLState() != null) {
            String state = sql.getSQLState();
            return state.startsWith("08") || state.startsWith("40") || state.startsWith("53") || state.startsWith("57P")
                    || state.equals(QUERY_CANCELED) || state.equals(LOCK_NOT_AVAILABLE);
        }
        return false;
    }

    /**
     * After a connection error HikariCP swaps the pooled connection for a closed stand-in, and every later call
     * on it (the rollback after a failed commit, the next statement of the transaction) throws a plain
     * SQLException "Connection is closed" without SQLState, which Spring cannot translate.
     */
    private static boolean isClosedPoolConnection(Throwable t) {
        return t instanceof SQLException sql && sql.getSQLState() == null
                && HIKARI_CLOSED_CONNECTION.equals(sql.getMessage());
    }

    private static boolean isKafkaRetriable(Throwable t) {
        // by name: the Kafka client is on the class path, but this class should not need it to load
        for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().equals("org.apache.kafka.common.errors.RetriableException")) {
                return true;
            }
        }
        return false;
    }
}
