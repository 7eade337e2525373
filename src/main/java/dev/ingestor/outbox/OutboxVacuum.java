package dev.ingestor.outbox;

import java.sql.SQLWarning;
import java.sql.Statement;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Vacuums the outbox between autovacuum's visits while events flow (routes/outbox-relay.camel.yaml, step 5).
 * <p>
 * The outbox holds only pending events: every published one is deleted, so under a large file the table gains
 * about as many dead rows as events per second. Autovacuum visits a database at most once a minute
 * ({@code autovacuum_naptime}), and until it has been, every relay round reads its slices' index past the dead rows
 * of the last minute: 600,000 of them under a 1,000,000-record file, when the take and the read cost a relay round
 * several milliseconds of PostgreSQL each (docs/benchmarks.md). So when the outbox holds more than
 * {@code ingestor.outbox.vacuum-dead-rows} dead rows, as PostgreSQL's statistics count them, this instance vacuums
 * it: a plain {@code VACUUM}, which takes no lock that stops the relays or the writers, skipped when another
 * instance is vacuuming it ({@code SKIP_LOCKED}). A database user that does not own the table cannot vacuum it:
 * PostgreSQL says so as a warning, which is logged once; autovacuum alone then looks after the table.
 */
@Component
public class OutboxVacuum {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.outbox");

    private final JdbcTemplate jdbc;
    private final long deadRows;
    private volatile boolean refused;

    public OutboxVacuum(JdbcTemplate jdbc, OutboxSettings settings) {
        this.jdbc = jdbc;
        this.deadRows = settings.getVacuumDeadRows();
    }

    /** Vacuums the outbox when it holds more dead rows than the setting allows; answers whether it did. */
    public boolean vacuumIfNeeded() {
        if (deadRows <= 0 || refused) {
            return false;
        }
        Long dead = jdbc.queryForObject(
                "SELECT coalesce(max(n_dead_tup), 0) FROM pg_stat_user_tables WHERE relid = 'outbox'::regclass",
                Long.class);
        if (dead == null || dead <= deadRows) {
            return false;
        }
        long start = System.nanoTime();
        SQLWarning warning = jdbc.execute((Statement statement) -> {
            // VACUUM cannot run in a transaction: JdbcTemplate's statement here is outside one, in auto-commit
            statement.execute("VACUUM (SKIP_LOCKED) outbox");
            return statement.getWarnings();
        });
        if (warning != null) {
            refused = true;
            LOG.warn("the outbox is not vacuumed between autovacuum's visits: PostgreSQL said \"{}\" (the database user"
                    + " must own table outbox; ingestor.outbox.vacuum-dead-rows=0 turns this off)",
                    warning.getMessage());
            return false;
        }
        LOG.debug("vacuumed the outbox ({} dead rows) in {} ms", dead, (System.nanoTime() - start) / 1_000_000);
        return true;
    }
}
