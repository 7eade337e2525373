package dev.ingestor.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A connection of the test's own to the test database, outside the application's pool and in autocommit, to hold
 * locks (advisory ones, say) while the application runs into them.
 */
public final class LockHolder implements AutoCloseable {

    private final Connection connection;
    private final int pid;

    public LockHolder() throws SQLException {
        connection = DriverManager.getConnection(TestPostgres.jdbcUrl("ingestor"));
        connection.setAutoCommit(true);
        pid = query("SELECT pg_backend_pid()");
    }

    /** Its backend's process id, as {@code pg_blocking_pids} names it. */
    public int pid() {
        return pid;
    }

    /**
     * Holds the lock of content key {@code key} (the lock ContentKeyLock takes), as intake holds it while the same
     * bytes arrive, until {@link #releaseContentKey} or the connection's end.
     */
    public void holdContentKey(String key) throws SQLException {
        query("SELECT 1 FROM (SELECT pg_advisory_lock(hashtext('ingestor.content-key'), hashtext(?))) l", key);
    }

    public void releaseContentKey(String key) throws SQLException {
        query("SELECT 1 FROM (SELECT pg_advisory_unlock(hashtext('ingestor.content-key'), hashtext(?))) l", key);
    }

    /** Runs {@code sql} with {@code args}; the first column of its first row as an int. */
    public int query(String sql, Object... args) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                statement.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
