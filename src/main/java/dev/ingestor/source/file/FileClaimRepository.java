package dev.ingestor.source.file;

import dev.ingestor.config.InstanceId;
import dev.ingestor.intake.IntakeSettings;
import org.apache.camel.spi.IdempotentRepository;
import org.apache.camel.support.service.ServiceSupport;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Claims on inbox files, used as the file consumer's idempotent read lock so that several instances polling
 * the same folder never take the same file. A claim carries its owner and time; one older than the lease
 * belongs to an instance that died mid-file and is taken over, so no file is blocked for ever.
 */
@Component("fileClaimRepository")
class FileClaimRepository extends ServiceSupport implements IdempotentRepository {

    private final JdbcTemplate jdbc;
    private final String owner;
    private final double leaseSeconds;

    public FileClaimRepository(JdbcTemplate jdbc, InstanceId instanceId, IntakeSettings intake) {
        this.jdbc = jdbc;
        this.owner = instanceId.value();
        this.leaseSeconds = intake.getClaimLease().toMillis() / 1000.0;
    }

    @Override
    public boolean add(String key) {
        return jdbc.update("INSERT INTO file_claim (claim_key, owner) VALUES (?, ?)"
                + " ON CONFLICT (claim_key) DO UPDATE SET owner = EXCLUDED.owner, claimed_at = now()"
                + " WHERE file_claim.claimed_at < now() - make_interval(secs => ?)", key, owner, leaseSeconds) == 1;
    }

    @Override
    public boolean contains(String key) {
        return Boolean.TRUE.equals(jdbc.queryForObject(
                "SELECT EXISTS (SELECT 1 FROM file_claim WHERE claim_key = ?)", Boolean.class, key));
    }

    @Override
    public boolean remove(String key) {
        // only our own claim: after a lease takeover the file belongs to someone else
        return jdbc.update("DELETE FROM file_claim WHERE claim_key = ? AND owner = ?", key, owner) == 1;
    }

    @Override
    public boolean confirm(String key) {
        return true;
    }

    @Override
    public void clear() {
        jdbc.update("DELETE FROM file_claim WHERE owner = ?", owner);
    }
}
