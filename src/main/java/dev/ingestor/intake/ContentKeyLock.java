package dev.ingestor.intake;

import java.util.List;

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
     * Waits for the lock of each of {@code keys} in turn, in their order, in one statement (a round trip for a
     * batch, not one a key); must run inside a transaction, which releases them. Whoever takes several keys gives
     * them in one order (sorted), so that two such transactions never wait on each other in a circle: unnest reads
     * an array in its order, and the aggregate takes its rows as they come.
     */
    public void lockAll(List<String> keys) {
        if (keys.isEmpty()) {
            return;
        }
        jdbc.queryForObject("SELECT count(" + LOCK_OF_K + ") FROM unnest(?::text[]) AS k", Long.class,
                (Object) keys.toArray(String[]::new));
    }
}
