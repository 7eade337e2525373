package dev.ingestor.intake;

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

    private final JdbcTemplate jdbc;

    public ContentKeyLock(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** Waits for the key's lock; must run inside a transaction, which releases it. */
    public void lock(@Header(IntakeHeaders.KEY) String key) {
        // the two-number form keeps these locks apart from the single-number ones used elsewhere
        jdbc.queryForObject(
                "SELECT 1 FROM (SELECT pg_advisory_xact_lock(hashtext('ingestor.content-key'), hashtext(?))) l",
                Integer.class, key);
    }
}
