package dev.ingestor.outbox;

import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Vacuums the outbox between autovacuum's visits while events flow (routes/outbox-relay.camel.yaml).
 * <p>
 * The outbox holds only pending events: every published one is deleted, so under a large file the table gains
 * about as many dead rows as events per second. Autovacuum visits a database at most once a minute
 * ({@code autovacuum_naptime}), and until it has, every relay round reads its slices' index past the dead rows of the
 * last minute (600,000 of them under a 1,000,000-record file; docs/benchmarks.md). So when the outbox holds more
 * than {@code ingestor.outbox.vacuum-dead-rows} dead rows, as PostgreSQL's statistics count them, more than its
 * last vacuum here left behind, this instance vacuums it:
 * <ul>
 * <li>a plain {@code VACUUM}, which takes no lock that stops the relays or the writers, without truncating the
 * table's empty end (that would take an exclusive lock for a moment: the next events fill those pages anyway);</li>
 * <li>{@code SKIP_LOCKED}: while another instance or autovacuum is vacuuming it, skipped until the next check;</li>
 * <li>rows an open transaction still sees cannot go; what a vacuum leaves is remembered, so a long transaction
 * elsewhere (a dump, a report) does not make every check vacuum again for nothing;</li>
 * <li>only a table owner (or a superuser) may vacuum: another database user is told once in the log, and asked
 * again at every check, so giving it the table later needs no restart.</li>
 * </ul>
 */
@Component
public class OutboxVacuum {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.outbox");

    /** The outbox's dead rows, and whether this session's user may vacuum it. */
    private static final String LOOK = """
            SELECT s.n_dead_tup AS dead,
                   pg_has_role(c.relowner, 'USAGE') OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
                       AS may
            FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
            WHERE s.relid = 'outbox'::regclass
            """;

    private final JdbcTemplate jdbc;
    private final long deadRows;
    /** Dead rows this instance's last vacuum could not remove (an open transaction still saw them). */
    private volatile long leftBehind;
    private volatile boolean toldNotOwner;

    public OutboxVacuum(JdbcTemplate jdbc, OutboxSettings settings) {
        this.jdbc = jdbc;
        this.deadRows = settings.getVacuumDeadRows();
    }

    /** Vacuums the outbox when it holds more dead rows than the setting allows; answers whether it did. */
    public boolean vacuumIfNeeded() {
        if (deadRows <= 0) {
            return false;
        }
        Look look = look();
        if (look == null) {
            return false;
        }
        if (look.dead() < leftBehind) {
            leftBehind = 0; // vacuumed since, by autovacuum or another instance
        }
        if (look.dead() <= leftBehind + deadRows) {
            return false;
        }
        if (!look.may()) {
            if (!toldNotOwner) {
                toldNotOwner = true;
                LOG.warn("the outbox holds {} dead rows and is not vacuumed between autovacuum's visits: the database"
                        + " user does not own table outbox (ingestor.outbox.vacuum-dead-rows=0 turns this off)",
                        look.dead());
            }
            return false;
        }
        toldNotOwner = false;
        long start = System.nanoTime();
        SQLWarning skipped = jdbc.execute((Statement statement) -> {
            // VACUUM cannot run in a transaction: this statement runs outside one, in auto-commit
            statement.execute("VACUUM (SKIP_LOCKED, TRUNCATE false) outbox");
            return statement.getWarnings();
        });
        if (skipped != null) {
            // another vacuum holds the table (or PostgreSQL warns of something else): the next check looks again
            LOG.debug("outbox vacuum skipped: {}", skipped.getMessage());
            return false;
        }
        Look after = look();
        leftBehind = after == null ? 0 : after.dead();
        LOG.debug("vacuumed the outbox ({} dead rows, {} left) in {} ms", look.dead(), leftBehind,
                (System.nanoTime() - start) / 1_000_000);
        return true;
    }

    private Look look() {
        List<Look> rows = jdbc.query(LOOK, (rs, n) -> new Look(rs.getLong("dead"), rs.getBoolean("may")));
        return rows.isEmpty() ? null : rows.get(0);
    }

    private record Look(long dead, boolean may) {
    }
}
