package dev.ingestor.config;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationStartedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Says at start how this instance's connection pool fits the server's {@code max_connections}: how many instances
 * of this pool size the server takes, and warns when not even this one fits (with the connections others hold
 * now). Behind a pooler in transaction mode the server's limit bounds the pooler's connections, not the app's, so
 * nothing is said then. docs/operations.md (Database connections) gives the sum the pool is sized by.
 */
@Component
class ConnectionBudget {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.database");

    private final JdbcTemplate jdbc;
    private final DataSource dataSource;
    private final DatabaseTimeouts timeouts;

    ConnectionBudget(JdbcTemplate jdbc, DataSource dataSource, DatabaseTimeouts timeouts) {
        this.jdbc = jdbc;
        this.dataSource = dataSource;
        this.timeouts = timeouts;
    }

    /**
     * What the server allows and what is in use, as read at start. An instance opens its pool and one connection
     * more, the wakeup listener's (counted whether or not it is switched on: one slot is a small margin).
     */
    record Reading(int poolSize, int maxConnections, int reserved, int inUse) {

        int perInstance() {
            return poolSize + 1;
        }

        /** Instances of this pool size the server's ordinary connections take. */
        int instancesThatFit() {
            return Math.max(0, (maxConnections - reserved) / perInstance());
        }

        /** Whether this pool, full, would find a connection slot for each of its connections. */
        boolean fitsBesideWhatIsInUse() {
            return perInstance() + inUse <= maxConnections - reserved;
        }
    }

    /**
     * The connections in use on the server but this pool's own: the report comes once the routes run, whose
     * connections the pool already holds and the sum counts again as the full pool.
     */
    static int othersInUse(int inUse, HikariDataSource pool) {
        int own = pool.getHikariPoolMXBean() == null ? 0 : pool.getHikariPoolMXBean().getTotalConnections();
        return Math.max(0, inUse - own);
    }

    @EventListener(ApplicationStartedEvent.class)
    void report() {
        if (timeouts.transactionPooler() || !(dataSource instanceof HikariDataSource pool)) {
            return;
        }
        Reading reading;
        try {
            reading = jdbc.queryForObject("SELECT current_setting('max_connections')::int,"
                    + " current_setting('superuser_reserved_connections')::int"
                    + " + coalesce(current_setting('reserved_connections', true)::int, 0),"
                    + " (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int",
                    (rs, row) -> new Reading(pool.getMaximumPoolSize(), rs.getInt(1), rs.getInt(2),
                            othersInUse(rs.getInt(3), pool)));
        } catch (RuntimeException e) {
            LOG.warn("could not read max_connections from the server: {}", e.getMessage());
            return;
        }
        if (!reading.fitsBesideWhatIsInUse()) {
            LOG.warn(
                    "connection budget: this pool may open {} connections (spring.datasource.hikari.maximum-pool-size),"
                            + " the server allows {} ({} reserved) and {} are in use: under load requests will wait for a"
                            + " connection and be answered 503; lower the pool or raise max_connections"
                            + " (docs/operations.md, Database connections)",
                    reading.perInstance(), reading.maxConnections(),
                    reading.reserved(), reading.inUse());
        } else {
            LOG.info("connection budget: pool of {} and the wakeup listener against max_connections {} ({} reserved,"
                    + " {} in use by others now): {} instance(s) of this size fit the server", reading.poolSize(),
                    reading.maxConnections(),
                    reading.reserved(), reading.inUse(), reading.instancesThatFit());
        }
    }
}
