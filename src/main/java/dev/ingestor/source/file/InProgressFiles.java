package dev.ingestor.source.file;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.ingestor.intake.IntakeSettings;
import org.apache.camel.spi.IdempotentRepository;
import org.apache.camel.support.service.ServiceSupport;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.annotation.Scope;
import org.springframework.stereotype.Component;

/**
 * The file-drop and SFTP routes' marks of the files in progress on this instance (Camel's {@code
 * inProgressRepository}, one per endpoint): Camel's own, except that a mark older than the claim lease
 * ({@code ingestor.intake.claim-lease}) is gone. Camel marks a file as it lists it and lets go of the mark when the
 * file is done or not taken; a poll that fails with an {@link Error} lets go of none ({@link PollsThroughErrors}
 * polls again), so the files it had listed would be skipped on this instance until a restart. A file still marked
 * after the lease is one whose claim any instance may take over too ({@link FileClaimRepository}).
 */
@Component(InProgressFiles.NAME)
@Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
public class InProgressFiles extends ServiceSupport implements IdempotentRepository {

    static final String NAME = "inProgressFiles";

    private final long leaseNanos;
    /** Each mark's time ({@link System#nanoTime}). */
    private final Map<String, Long> marks = new ConcurrentHashMap<>();
    private volatile long sweptAt = System.nanoTime();

    public InProgressFiles(IntakeSettings intake) {
        this.leaseNanos = intake.getClaimLease().toNanos();
    }

    @Override
    public boolean add(String key) {
        long now = System.nanoTime();
        sweepExpired(now);
        boolean[] added = {false};
        marks.compute(key, (k, since) -> {
            if (since != null && now - since <= leaseNanos) {
                return since;
            }
            added[0] = true;
            return now;
        });
        return added[0];
    }

    @Override
    public boolean contains(String key) {
        Long since = marks.get(key);
        return since != null && System.nanoTime() - since <= leaseNanos;
    }

    @Override
    public boolean remove(String key) {
        return marks.remove(key) != null;
    }

    @Override
    public boolean confirm(String key) {
        return true;
    }

    @Override
    public void clear() {
        marks.clear();
    }

    /** The marks of files that went while marked, once a lease at most, so they do not pile up. */
    private void sweepExpired(long now) {
        if (now - sweptAt > leaseNanos) {
            sweptAt = now;
            marks.values().removeIf(since -> now - since > leaseNanos);
        }
    }
}
