package dev.ingestor.intake;

import dev.ingestor.config.InstanceId;
import dev.ingestor.job.ContentKey;
import org.apache.camel.Exchange;
import org.apache.camel.spi.IdempotentRepository;
import org.apache.camel.support.service.ServiceSupport;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The idempotent consumer's repository of content keys, on PostgreSQL.
 *
 * <p>Unlike Camel's {@code JdbcMessageIdRepository}, which runs {@code SELECT} and then {@code INSERT} (two
 * racing arrivals can both pass the check) and keeps no state beyond the id, this repository inserts first
 * with {@code ON CONFLICT DO NOTHING}: the primary key decides, in one statement. It is called inside the
 * intake transaction, so the key commits together with its import job or not at all: a failure before the
 * commit (disk full, connection lost, crash) leaves no key behind and the file is ingested on retry. A
 * concurrent arrival of the same content waits on the uncommitted key and then sees it as a duplicate.
 */
@Component("contentKeyRepository")
class ContentKeyRepository extends ServiceSupport implements IdempotentRepository {

    private final JdbcTemplate jdbc;
    private final String instanceId;

    public ContentKeyRepository(JdbcTemplate jdbc, InstanceId instanceId) {
        this.jdbc = jdbc;
        this.instanceId = instanceId.value();
    }

    @Override
    public boolean add(String key) {
        ContentKey parsed = ContentKey.parse(key);
        return jdbc.update("INSERT INTO content_key (key, supplier, sha256, created_by) VALUES (?, ?, ?, ?)"
                + " ON CONFLICT (key) DO NOTHING", key, parsed.supplier(), parsed.sha256(), instanceId) == 1;
    }

    @Override
    public boolean contains(String key) {
        return Boolean.TRUE.equals(jdbc.queryForObject(
                "SELECT EXISTS (SELECT 1 FROM content_key WHERE key = ?)", Boolean.class, key));
    }

    /**
     * Releases a key only while no job holds it; intake relies on its transaction rolling back instead, so
     * this exists for Camel's contract and for operators, and can never orphan a job.
     */
    @Override
    public boolean remove(String key) {
        return jdbc.update("DELETE FROM content_key k WHERE k.key = ?"
                + " AND NOT EXISTS (SELECT 1 FROM import_job j WHERE j.key = k.key)", key) == 1;
    }

    @Override
    public boolean confirm(String key) {
        // nothing to confirm: the key was written with its job in one transaction
        return true;
    }

    @Override
    public boolean add(Exchange exchange, String key) {
        return add(key);
    }

    @Override
    public void clear() {
        throw new UnsupportedOperationException(
                "content keys are the record of what was ingested; they expire with their jobs, not in bulk");
    }
}
