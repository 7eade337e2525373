package dev.ingestor.source;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import dev.ingestor.job.ImportJob;
import dev.ingestor.job.ImportJobStore;

import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Repeated pushes answered without a transaction ({@link FilePushApi}), counted on their jobs in batches: a
 * job's {@code duplicate_count} and {@code last_seen_at} catch up within {@link #FLUSH_INTERVAL_MS} and on an
 * orderly shutdown. The counts of the last interval are lost if the process dies: they are statistics of
 * arrivals that changed nothing, and the job, the key and the answer the caller got do not depend on them.
 * A count that cannot be written (the database is away) is kept and written with the next batch.
 *
 * <p>The job a repeated push is answered with carries the count as it will be once written (the row's plus
 * this instance's unwritten ones): a batch is written while no answer is being made, so none is counted
 * twice or missed. Arrivals at another instance show once that instance has written them.
 */
@Component
public class DuplicatePushCounts {

    private static final Logger LOG = LoggerFactory.getLogger(DuplicatePushCounts.class);
    static final long FLUSH_INTERVAL_MS = 1000;

    /** Arrivals of one job not yet written, and when the last of them came. */
    record Pending(int count, Instant lastSeen) {
        Pending plus(Pending other) {
            return new Pending(count + other.count, lastSeen.isAfter(other.lastSeen) ? lastSeen : other.lastSeen);
        }
    }

    private final JdbcTemplate jdbc;
    private final ImportJobStore jobs;
    /** Answers share it; a batch being written takes it alone. */
    private final ReadWriteLock writing = new ReentrantReadWriteLock();
    private final Map<UUID, Pending> pending = new ConcurrentHashMap<>();
    private final ScheduledExecutorService flusher = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "duplicate-push-counts");
        thread.setDaemon(true);
        return thread;
    });

    public DuplicatePushCounts(JdbcTemplate jdbc, ImportJobStore jobs) {
        this.jdbc = jdbc;
        this.jobs = jobs;
        flusher.scheduleWithFixedDelay(this::flushQuietly, FLUSH_INTERVAL_MS, FLUSH_INTERVAL_MS, TimeUnit.MILLISECONDS);
    }

    /**
     * Counts one more arrival of the content of job {@code jobId} (key {@code key}) and returns the job as it
     * stands with it; empty, and nothing counted, when there is no such job (any more).
     */
    public Optional<ImportJob> arrival(UUID jobId, String key, Instant seen) {
        writing.readLock().lock();
        try {
            Optional<ImportJob> row = jobs.find(jobId).filter(j -> key.equals(String.valueOf(j.key())) && j.requestKey() == null);
            if (row.isEmpty()) {
                return row;
            }
            int unwritten = pending.merge(jobId, new Pending(1, seen), Pending::plus).count();
            ImportJob job = row.get();
            return Optional.of(new ImportJob(job.id(), job.supplier(), job.state(), job.key(), job.fileName(), job.size(),
                    job.source(), job.receivedAt(), job.updatedAt(), job.duplicateCount() + unwritten, seen, job.counts(),
                    job.error(), job.recordsDone(), job.requestKey(), job.format(), job.submittedBy()));
        } finally {
            writing.readLock().unlock();
        }
    }

    /** Arrivals of the job counted here and not written yet. */
    public int pendingOf(UUID job) {
        Pending p = pending.get(job);
        return p == null ? 0 : p.count();
    }

    /** Writes what is pending, one statement per job, in one batch; returns how many arrivals were written. */
    public int flush() {
        writing.writeLock().lock();
        try {
            return writeBatch();
        } finally {
            writing.writeLock().unlock();
        }
    }

    private int writeBatch() {
        List<Map.Entry<UUID, Pending>> taken = new ArrayList<>();
        for (UUID job : List.copyOf(pending.keySet())) {
            Pending p = pending.remove(job);
            if (p != null) {
                taken.add(Map.entry(job, p));
            }
        }
        if (taken.isEmpty()) {
            return 0;
        }
        // in id order, so two instances writing the same jobs at once take their row locks in the same order
        taken.sort(Map.Entry.comparingByKey());
        try {
            jdbc.batchUpdate("UPDATE import_job SET duplicate_count = duplicate_count + ?,"
                            + " last_seen_at = greatest(last_seen_at, ?) WHERE id = ?", taken, taken.size(),
                    (ps, e) -> {
                        ps.setInt(1, e.getValue().count());
                        ps.setTimestamp(2, Timestamp.from(e.getValue().lastSeen()));
                        ps.setObject(3, e.getKey());
                    });
        } catch (RuntimeException e) {
            taken.forEach(t -> pending.merge(t.getKey(), t.getValue(), Pending::plus));
            throw e;
        }
        return taken.stream().mapToInt(t -> t.getValue().count()).sum();
    }

    private void flushQuietly() {
        try {
            flush();
        } catch (RuntimeException e) {
            LOG.warn("duplicate counts of {} job(s) not written yet, kept for the next try: {}", pending.size(), e.toString());
        }
    }

    @PreDestroy
    void stop() {
        flusher.shutdownNow();
        flushQuietly();
    }
}
