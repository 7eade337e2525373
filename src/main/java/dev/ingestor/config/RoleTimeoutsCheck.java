package dev.ingestor.config;

import java.util.HashMap;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Behind a pooler in transaction mode the connections cannot carry {@code ingestor.database.statement-timeout}
 * and {@code lock-timeout} ({@link DatabaseTimeouts}); the role (or the role in the database) must. At start this
 * reads what the server's sessions get and warns, naming the statement to run, where it is not what the app is
 * configured to have: without it a hung lock or a runaway statement holds a thread and a connection for as long
 * as it lasts. The app still starts: the limits guard against the database's faults, they keep no data safe.
 */
@Component
class RoleTimeoutsCheck {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.database");

    private final JdbcTemplate jdbc;
    private final DatabaseTimeouts timeouts;

    RoleTimeoutsCheck(JdbcTemplate jdbc, DatabaseTimeouts timeouts) {
        this.jdbc = jdbc;
        this.timeouts = timeouts;
    }

    @EventListener(ApplicationStartedEvent.class)
    void check() {
        if (!timeouts.transactionPooler()) {
            return;
        }
        Map<String, Long> server = new HashMap<>();
        try {
            jdbc.query(
                    "SELECT name, setting::bigint FROM pg_settings WHERE name IN ('statement_timeout', 'lock_timeout')",
                    rs -> {
                        server.put(rs.getString(1), rs.getLong(2));
                    });
        } catch (RuntimeException e) {
            LOG.warn("could not read statement_timeout and lock_timeout from the server: {}", e.getMessage());
            return;
        }
        compare("statement_timeout", DatabaseTimeouts.STATEMENT_TIMEOUT, timeouts.statementMillis(), server);
        compare("lock_timeout", DatabaseTimeouts.LOCK_TIMEOUT, timeouts.lockMillis(), server);
    }

    private void compare(String parameter, String property, long configured, Map<String, Long> server) {
        long actual = server.getOrDefault(parameter, 0L);
        if (actual != configured) {
            LOG.warn("behind a transaction pooler (ingestor.database.transaction-pooler) the server's {} is {} ms, not"
                    + " the {} ms of {}: set it on the role, e.g. ALTER ROLE CURRENT_USER SET {} = '{}ms'"
                    + " (docs/operations.md, Database connections)", parameter, actual, configured, property, parameter,
                    configured);
        }
    }
}
