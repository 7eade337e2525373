package dev.ingestor.intake;

import java.util.Collection;
import java.util.TreeSet;

import org.apache.camel.Header;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * One lock per content key, held until the surrounding transaction ends (a PostgreSQL advisory lock, so it
 * holds across instances). Intake takes it before it puts a file's bytes in place and registers the key;
 * retention takes it before it deletes a key and its raw file. So a raw file is never deleted between the
 * moment intake finds it in place and the commit of the job that refers to it.
 */
@Component("contentKeyLock")
public class ContentKeyLock {

    /** The lock of one key; the two-number form keeps these locks apart from the single-number ones used elsewhere. */
    private static final String LOCK_OF_K = "pg_advisory_xact_lock(hashtext('ingestor.content-key'), hashtext(k))";

    private final JdbcTemplate jdbc;

    public ContentKeyLock(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** Waits for the key's lock; must run inside a transaction, which releases it. */
    public void lock(@Header(IntakeHeaders.KEY) String key) {
        jdbc.queryForObject("SELECT 1 FROM (SELECT " + LOCK_OF_K + " FROM (SELECT ?::text AS k) t) l", Integer.class,
                key);
    }

    /**
     * Waits for the locks of {@code keys}, one after another in sorted order, in one statement (a round trip for a
     * batch, not one a key); must run inside a transaction, which releases them. One order for every caller that
     * takes several keys, so two such transactions never wait on each other in a circle: unnest reads the sorted
     * array in its order and the aggregate takes the locks as its rows come (how PostgreSQL executes this plain
     * aggregate over a function scan; {@code ContentKeyLockTest} holds it).
     */
    public void lockAll(Collection<String> keys) {
        if (keys.isEmpty()) {
            return;
        }
        jdbc.queryForObject("SELECT count(" + LOCK_OF_K + ") FROM unnest(?::text[]) AS k", Long.class,
                (Object) new TreeSet<>(keys).toArray(String[]::new));
    }
}
