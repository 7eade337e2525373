package dev.ingestor.source.http;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.ingestor.config.RetentionSettings;
import dev.ingestor.job.ImportJob;
import dev.ingestor.job.ImportJobStore;
import dev.ingestor.job.JobLifecycle;
import dev.ingestor.web.HttpSettings;
import jakarta.annotation.PreDestroy;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.ExecutorServiceManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Repeated pushes answered without a transaction ({@link FilePushApi}), counted on their jobs in batches: a
 * job's {@code duplicate_count} and {@code last_seen_at} catch up within {@link #FLUSH_INTERVAL_MS} and on an
 * orderly shutdown. The counts of the last interval are lost if the process dies: they are statistics of
 * arrivals that changed nothing, and the job, the key and the answer the caller got do not depend on them.
 * A count that cannot be written (the database is away) is kept and written with the next batch. A batch whose
 * statement committed but whose answer was lost (the connection cut between the two) counts as not written and is
 * written again: the counts are then over by that batch, never under.
 *
 * <p>The job a repeated push is answered with carries the count as it will be once written (the row's plus
 * this instance's unwritten ones, those of the batch being written among them). A batch moves its arrivals from
 * pending to being written, and once written onto the copies, each move while no answer is being made, so none
 * is counted twice or missed; answers from copies go on while its statement runs. A job's row is read only while
 * no batch is being written, so a row never holds a batch's arrivals that are still counted as being written.
 * Arrivals at another instance show once that instance has written them.
 *
 * <p>A job at rest leaves its state only when an operator sends it back to work, so its row, once read, answers
 * the repeated pushes of the next {@code ingestor.http.duplicate-answer-max-age} without being read again, its
 * count carried on by the arrivals here (the row's count when read, what this instance wrote of its arrivals
 * since, and what it has not written yet). The copy is dropped as soon as this instance sends any job back to
 * work ({@link JobLifecycle#sentBackToWork}); another instance's operator action, and duplicates counted on the
 * row by others (other instances, intake), show once it is older than that. Retention cannot take the job away
 * meanwhile: a copy is kept only of a job that stays well within {@code ingestor.retention.job-max-age} for
 * longer than it is kept (every instance with the same age, clocks within {@link #RETENTION_MARGIN}). A job
 * deleted by hand answers from its copy only until its counts are next written: the batch finds no row and
 * drops the copy, so the next push reads the row, finds it gone, and intake takes the bytes as new content.
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

    /**
     * Most jobs kept as read (a Caffeine size bound: past it the cache's frequency and recency policy chooses the
     * copy that goes); a repeated push whose job is not kept reads its job as before.
     */
    static final int MAX_KEPT = 20_000;
    /** How far a kept job stays from the retention age, besides its time kept: clocks of instances differ a little. */
    private static final Duration RETENTION_MARGIN = Duration.ofMinutes(10);

    /**
     * A job as read, at rest ({@code job} null when it was not: a later answer reads it again): with the row's count
     * then, what this instance has written of its arrivals since, the moment it was read, the operator transitions
     * this instance had made before, and the order of the read among all reads here (an earlier read that ends
     * later never replaces what a later one saw).
     */
    private record Kept(ImportJob job, int rowCount, AtomicInteger writtenSince, long readAt, long sentBackBefore,
            long read) {
    }

    /**
     * A batch's arrivals in one statement: the rows locked first, in id order (the rows are ordered before they are
     * locked, so two instances writing the same jobs at once lock them in the same order), then each counted;
     * answers the ids of the rows written (a job deleted meanwhile is not among them).
     */
    private static final String WRITE_COUNTS = "WITH locked AS MATERIALIZED"
            + " (SELECT id FROM import_job WHERE id = ANY (?) ORDER BY id FOR UPDATE)"
            + " UPDATE import_job j SET duplicate_count = j.duplicate_count + u.n,"
            + " last_seen_at = greatest(j.last_seen_at, u.seen)"
            + " FROM unnest(?::uuid[], ?::integer[], ?::text[]::timestamptz[]) AS u(id, n, seen) JOIN locked l ON l.id = u.id"
            + " WHERE j.id = u.id RETURNING j.id";

    private final JdbcTemplate jdbc;
    private final ImportJobStore jobs;
    private final JobLifecycle lifecycle;
    private final long keepNanos;
    private final Duration jobMaxAge;
    /** Copies expire {@code duplicate-answer-max-age} after they were read; {@link #current} checks the age exactly. */
    private final Map<UUID, Kept> kept;
    private final AtomicLong reads = new AtomicLong();
    /**
     * Answers share it; a batch takes it alone to move its arrivals (on, or back after a failure), never while its
     * statement runs.
     */
    private final ReadWriteLock answering = new ReentrantReadWriteLock();
    /** Reads of job rows share it; a batch takes it alone from its first move to its last. */
    private final ReadWriteLock rows = new ReentrantReadWriteLock();
    /**
     * Arrivals not in a batch yet. This map and {@link #beingWritten} are replaced, never emptied or filled from
     * each other: a batch builds the map it moves to in full before it swaps them, so an {@link Error} part way
     * (out of memory) leaves every arrival counted once, in one or the other.
     */
    private volatile Map<UUID, Pending> pending = new ConcurrentHashMap<>();
    /**
     * The arrivals of the batch being written: still counted in answers until the copies are told. Empty between
     * batches, unless putting a failed batch back failed too: the next batch then takes them with its own.
     */
    private volatile Map<UUID, Pending> beingWritten = Map.of();
    /** Writes the batches; Camel's thread pool, so Camel names and lists it (the final batch is {@link #stop}'s). */
    private final ExecutorServiceManager pools;
    private final ScheduledExecutorService flusher;

    @Autowired
    public DuplicatePushCounts(JdbcTemplate jdbc, ImportJobStore jobs, JobLifecycle lifecycle, HttpSettings http,
            RetentionSettings retention, CamelContext camelContext) {
        this(jdbc, jobs, lifecycle, http, retention, camelContext, FLUSH_INTERVAL_MS);
    }

    /** With batches every {@code flushIntervalMs} (0: none but {@link #flush} and {@link #stop}'s). */
    DuplicatePushCounts(JdbcTemplate jdbc, ImportJobStore jobs, JobLifecycle lifecycle, HttpSettings http,
            RetentionSettings retention, CamelContext camelContext, long flushIntervalMs) {
        this.jdbc = jdbc;
        this.jobs = jobs;
        this.lifecycle = lifecycle;
        this.keepNanos = Math.max(0, http.getDuplicateAnswerMaxAge().toNanos());
        this.jobMaxAge = retention.getJobMaxAge();
        Cache<UUID, Kept> copies = Caffeine.newBuilder().maximumSize(MAX_KEPT)
                .expireAfterWrite(Duration.ofNanos(keepNanos)).build();
        this.kept = copies.asMap();
        this.pools = camelContext.getExecutorServiceManager();
        this.flusher = pools.newSingleThreadScheduledExecutor(this, "duplicate-push-counts");
        if (flushIntervalMs > 0) {
            flusher.scheduleWithFixedDelay(this::flushQuietly, flushIntervalMs, flushIntervalMs,
                    TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Counts one more arrival of the content of job {@code jobId} (key {@code key}) and returns the job as it
     * stands with it; empty, and nothing counted, when there is no such job (any more).
     */
    public Optional<ImportJob> arrival(UUID jobId, String key, Instant seen) {
        long now = System.nanoTime();
        answering.readLock().lock();
        try {
            Kept copy = kept.get(jobId);
            if (copy != null && copy.job() != null && answers(copy.job(), key) && current(copy, now)) {
                int unwritten = pending.merge(jobId, new Pending(1, seen), Pending::plus).count()
                        + countOf(beingWritten.get(jobId));
                return Optional
                        .of(withCount(copy.job(), copy.rowCount() + copy.writtenSince().get() + unwritten, seen));
            }
        } finally {
            answering.readLock().unlock();
        }
        // no batch is being written meanwhile: the row holds every arrival written; what a failed batch could not put
        // back (beingWritten) is still unwritten
        rows.readLock().lock();
        try {
            long read = reads.incrementAndGet();
            long sentBackBefore = lifecycle.sentBackToWork();
            Optional<ImportJob> row = jobs.find(jobId).filter(j -> answers(j, key));
            if (row.isEmpty()) {
                kept.remove(jobId);
                return row;
            }
            int unwritten = pending.merge(jobId, new Pending(1, seen), Pending::plus).count()
                    + countOf(beingWritten.get(jobId));
            ImportJob job = row.get();
            if (keepNanos > 0) {
                Kept fresh = new Kept(keepable(job, seen) ? job : null, job.duplicateCount(), new AtomicInteger(), now,
                        sentBackBefore, read);
                kept.merge(jobId, fresh, (older, newer) -> older.read() > newer.read() ? older : newer);
            }
            return Optional.of(withCount(job, job.duplicateCount() + unwritten, seen));
        } finally {
            rows.readLock().unlock();
        }
    }

    private static int countOf(Pending arrivals) {
        return arrivals == null ? 0 : arrivals.count();
    }

    /**
     * Drops every job kept as read, so the next repeated push of each reads its row: for jobs deleted other than
     * by retention (a test emptying the tables), which the retention guard cannot see and no count may be
     * written for.
     */
    public void forgetKeptJobs() {
        kept.clear();
    }

    /**
     * The job of these bytes: the key matches, and it is a file's job, not an item batch's (those have a request key).
     */
    private static boolean answers(ImportJob job, String key) {
        return key.equals(String.valueOf(job.key())) && job.requestKey() == null;
    }

    /** A copy still answers: young enough, and no job sent back to work here since it was read. */
    private boolean current(Kept copy, long now) {
        return now - copy.readAt() < keepNanos && lifecycle.sentBackToWork() == copy.sentBackBefore();
    }

    /** At rest, and far enough from the retention age that no retention run can delete it while kept. */
    private boolean keepable(ImportJob job, Instant now) {
        if (!job.state().isAtRest()) {
            return false;
        }
        if (jobMaxAge.isZero() || jobMaxAge.isNegative()) {
            return true; // retention keeps jobs for ever
        }
        Instant deletableFrom = job.updatedAt().plus(jobMaxAge);
        return now.plusNanos(keepNanos).plus(RETENTION_MARGIN).isBefore(deletableFrom);
    }

    private static ImportJob withCount(ImportJob job, int duplicateCount, Instant seen) {
        return new ImportJob(job.id(), job.supplier(), job.state(), job.key(), job.fileName(), job.size(),
                job.source(), job.receivedAt(), job.updatedAt(), duplicateCount, seen, job.counts(),
                job.error(), job.recordsDone(), job.requestKey(), job.format(), job.submittedBy(), job.lease(),
                job.rerun());
    }

    /** Arrivals of the job counted here whose batch has not finished: pending, or in the batch being written. */
    public int pendingOf(UUID job) {
        answering.readLock().lock();
        try {
            return countOf(pending.get(job)) + countOf(beingWritten.get(job));
        } finally {
            answering.readLock().unlock();
        }
    }

    /** Writes what is pending, every job in one statement; returns how many arrivals were written. */
    public int flush() {
        rows.writeLock().lock();
        try {
            return writeBatch();
        } finally {
            rows.writeLock().unlock();
        }
    }

    private int writeBatch() {
        Map<UUID, Pending> taken;
        answering.writeLock().lock();
        try {
            // neither an answer (this lock) nor a row read (the batch's) runs now: both maps hold still
            taken = union(beingWritten, pending);
            Map<UUID, Pending> fresh = new ConcurrentHashMap<>();
            beingWritten = taken;
            pending = fresh;
        } finally {
            answering.writeLock().unlock();
        }
        if (taken.isEmpty()) {
            return 0;
        }
        boolean[] committed = new boolean[1];
        Set<UUID> rows;
        try {
            rows = write(taken, committed);
        } catch (RuntimeException | Error e) {
            if (committed[0]) {
                // on the rows, though which rows is not known
                written(taken, null);
            } else {
                // not written, as far as this instance can tell (an Error too): back to pending, for the next batch
                putBack(taken);
            }
            throw e;
        }
        written(taken, rows);
        return taken.values().stream().mapToInt(Pending::count).sum();
    }

    /**
     * Writes the batch in one statement ({@link #WRITE_COUNTS}) and answers the ids of the rows it counted on; sets
     * {@code committed[0]} once the statement has committed, whatever fails after.
     */
    private Set<UUID> write(Map<UUID, Pending> taken, boolean[] committed) {
        // the statement locks the rows in PostgreSQL's id order (WRITE_COUNTS), whatever the arrays' order; the
        // moments go as ISO-8601 instants, which carry their zone (a timestamp array's elements would not)
        int size = taken.size();
        UUID[] ids = new UUID[size];
        Integer[] counts = new Integer[size];
        String[] seen = new String[size];
        int i = 0;
        for (Map.Entry<UUID, Pending> t : taken.entrySet()) {
            ids[i] = t.getKey();
            counts[i] = t.getValue().count();
            seen[i] = t.getValue().lastSeen().toString();
            i++;
        }
        return jdbc.execute((Connection c) -> {
            try (PreparedStatement ps = c.prepareStatement(WRITE_COUNTS)) {
                ps.setArray(1, c.createArrayOf("uuid", ids));
                ps.setArray(2, c.createArrayOf("uuid", ids));
                ps.setArray(3, c.createArrayOf("integer", counts));
                ps.setArray(4, c.createArrayOf("text", seen));
                try (ResultSet rs = ps.executeQuery()) {
                    // in auto-commit (no transaction around a batch), the statement has committed once it answers
                    committed[0] = c.getAutoCommit();
                    Set<UUID> rows = new HashSet<>();
                    while (rs.next()) {
                        rows.add(rs.getObject(1, UUID.class));
                    }
                    return rows;
                }
            }
        });
    }

    /**
     * The rows now hold these arrivals, which the copies read before did not see: the copies are told and the
     * arrivals are no longer counted as being written, in one move while no answer is made. A job whose row is gone
     * (deleted by hand) is not answered from its copy again: the next push reads it, finds it gone, and intake takes
     * the bytes as new content. With {@code rows} null (which rows is not known), or if not every copy could be told,
     * the copies of the batch's jobs are dropped instead, so their next pushes read the rows.
     */
    private void written(Map<UUID, Pending> taken, Set<UUID> rows) {
        answering.writeLock().lock();
        boolean told = false;
        try {
            if (rows != null) {
                taken.forEach((job, arrivals) -> {
                    Kept copy = kept.get(job);
                    if (copy != null && !rows.contains(job)) {
                        kept.remove(job);
                    } else if (copy != null) {
                        copy.writtenSince().addAndGet(arrivals.count());
                    }
                });
                told = true;
            }
        } finally {
            try {
                if (!told) {
                    taken.keySet().forEach(kept::remove);
                }
            } finally {
                beingWritten = Map.of();
                answering.writeLock().unlock();
            }
        }
    }

    /**
     * A batch not written goes back to pending, to be written with the next. If even that fails (out of memory), its
     * arrivals stay as being written, still counted once, and the next batch takes them with its own.
     */
    private void putBack(Map<UUID, Pending> taken) {
        answering.writeLock().lock();
        try {
            Map<UUID, Pending> back = union(taken, pending);
            pending = back;
            beingWritten = Map.of();
        } finally {
            answering.writeLock().unlock();
        }
    }

    /** A new map of both maps' arrivals, built in full before anyone sees it. */
    private static Map<UUID, Pending> union(Map<UUID, Pending> a, Map<UUID, Pending> b) {
        Map<UUID, Pending> both = new ConcurrentHashMap<>(a);
        b.forEach((job, arrivals) -> both.merge(job, arrivals, Pending::plus));
        return both;
    }

    private void flushQuietly() {
        try {
            long now = System.nanoTime();
            kept.values().removeIf(copy -> !current(copy, now));
            flush();
        } catch (RuntimeException e) {
            LOG.warn("a batch of duplicate counts failed ({}); what it did not write is written with the next",
                    e.toString());
        } catch (Error e) {
            // caught too: a scheduled task that throws is never run again, and the counts would pile up here
            LOG.error("a batch of duplicate counts failed; what it did not write is written with the next", e);
        }
    }

    /** Stops the batches and writes the last one: the routes have stopped by now, every arrival is counted. */
    @PreDestroy
    void stop() {
        pools.shutdownNow(flusher);
        flushQuietly();
    }
}
