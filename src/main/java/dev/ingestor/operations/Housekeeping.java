package dev.ingestor.operations;

import java.io.IOException;
import java.nio.file.Files;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ingestor.config.DatabaseTimeouts;
import dev.ingestor.config.InstanceId;
import dev.ingestor.config.RetentionSettings;
import dev.ingestor.intake.ContentKeyLock;
import dev.ingestor.intake.IntakeSettings;
import dev.ingestor.intake.RawStore;
import dev.ingestor.job.ContentKey;
import dev.ingestor.job.JobState;
import org.apache.camel.CamelContext;
import org.apache.camel.spring.boot.CamelContextConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Retention and recovery, run by routes/housekeeping.camel.yaml.
 *
 * <p>Retention deletes in bounded batches ({@code ingestor.retention.batch-size} rows per statement), so no
 * statement holds its locks for long: expired HTTP idempotency keys, finished jobs older than their retention
 * with their records and dead letters and the content keys no remaining job refers to (a file's key is kept
 * while its job is) in one transaction, then, once that has committed, their raw files; published events in the
 * outbox's archive, and the records of intake failures (only the rows: a file in .failed/ or .rejected/ stays where
 * it is).
 *
 * <p>Recovery gives back what an instance that is gone still holds: claims on inbox and SFTP files, job leases
 * and HTTP requests IN_PROGRESS. Those of this instance's own previous run (same {@code ingestor.instance-id})
 * are let go at start, before any route runs; anyone's whose lease has run out, periodically. Jobs are re-driven
 * by the stages, which take over any job whose lease has run out.
 */
@Component("housekeeping")
class Housekeeping implements CamelContextConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.housekeeping");

    /**
     * The oldest published events past their age, at most a batch: found through the archive's index on
     * published_at (the oldest end of it), deleted by their row addresses, so the archive needs no other index.
     */
    static final String EXPIRED_PUBLISHED_EVENTS = "DELETE FROM outbox_published WHERE ctid = ANY (ARRAY("
            + "SELECT ctid FROM outbox_published WHERE published_at < now() - make_interval(secs => ?)"
            + " ORDER BY published_at LIMIT ?))";

    /** The keys of requests whose instance died, through the partial index of those in progress (V29). */
    static final String LAPSED_REQUESTS = "DELETE FROM http_request WHERE state = 'IN_PROGRESS' AND lease_until < now()";

    /** A request key whose request is not running: finished, or its lease (its instance) gone. */
    private static final String NOT_RUNNING = "(state <> 'IN_PROGRESS' OR lease_until < now())";

    /**
     * Expired HTTP keys with their stored answers, at most a batch, found through http_request_expires. The batch
     * is an array of row addresses, not {@code IN (SELECT ... LIMIT)}: the planner may join that subquery to a whole
     * scan of the table, which grows with the keys kept.
     */
    static final String EXPIRED_HTTP_KEYS = "DELETE FROM http_request WHERE ctid = ANY (ARRAY("
            + "SELECT ctid FROM http_request WHERE expires_at < now() AND " + NOT_RUNNING + " LIMIT ?))"
            // checked again on the row as it is when deleted: a retry may have taken the expired key over meanwhile
            // (RequestKeyStore), and a row address alone may not be checked again (PostgreSQL 18 checks it; older
            // majors are reported not to)
            + " AND expires_at < now() AND " + NOT_RUNNING;

    /**
     * Intake failures past their retention, at most a batch, by id through the primary key (as above, not
     * {@code IN (SELECT ... LIMIT)}, which a year of 100,000 failures turned into a scan of them all). A dropped file
     * that failed and was never retried keeps its row: the row is what the retry needs, and the file still lies in
     * .failed/ waiting for an operator. Any other failed file (one on an SFTP server, read again at the next poll) has
     * no retry waiting for its row.
     */
    static final String EXPIRED_INTAKE_FAILURES = "DELETE FROM intake_failure WHERE id = ANY (ARRAY("
            + "SELECT id FROM intake_failure WHERE occurred_at < now() - make_interval(secs => ?)"
            + " AND (outcome <> 'failed' OR retried_at IS NOT NULL OR source <> 'file-drop' OR location IS NULL)"
            + " LIMIT ?))";

    /**
     * Of the keys of jobs just deleted, those no job refers to any more, each with how many key rows went (the
     * same in every row): their key rows are deleted, their raw files are for {@code removeRawFiles}.
     */
    static final String UNUSED_KEYS_DELETED = "WITH unused AS (SELECT k FROM unnest(?::text[]) AS k"
            + " WHERE NOT EXISTS (SELECT 1 FROM import_job j WHERE j.key = k)),"
            + " deleted AS (DELETE FROM content_key c USING unused u WHERE c.key = u.k RETURNING c.key)"
            + " SELECT k, (SELECT count(*) FROM deleted) FROM unused";

    /**
     * A raw file is looked at for a key only this long after it was written: a registration is over within moments,
     * and by then a client that sends the same bytes again after a failure has done so.
     */
    static final Duration ORPHAN_AGE = Duration.ofDays(1);

    /** The raw store spreads each supplier's files over 256 folders, by their key's first two hex digits. */
    static final int RAW_FOLDERS = 256;

    /**
     * Of a list of keys, those without a key row or a job, named in raw_file_unlink. Checked again under each key's
     * lock when the file is unlinked ({@code removeRawFiles}); this only spares that step the keys in use.
     */
    static final String UNUSED_RAW_FILES_NAMED = "INSERT INTO raw_file_unlink (key) SELECT k FROM unnest(?::text[]) AS k"
            + " WHERE NOT EXISTS (SELECT 1 FROM content_key c WHERE c.key = k)"
            + " AND NOT EXISTS (SELECT 1 FROM import_job j WHERE j.key = k) ON CONFLICT DO NOTHING";

    private final JdbcTemplate jdbc;
    private final RawStore rawStore;
    /** The raw store's folder the next run looks through for orphaned files; all of them in 256 runs. */
    private final AtomicInteger nextRawFolder = new AtomicInteger(ThreadLocalRandom.current().nextInt(RAW_FOLDERS));
    private final RetentionSettings retention;
    private final IntakeSettings intake;
    private final String instance;
    private final ContentKeyLock contentKeyLock;
    private final TransactionTemplate transactions;

    public Housekeeping(JdbcTemplate jdbc, RawStore rawStore, RetentionSettings retention, IntakeSettings intake,
            InstanceId instanceId,
            ContentKeyLock contentKeyLock, PlatformTransactionManager transactionManager) {
        this.jdbc = jdbc;
        this.contentKeyLock = contentKeyLock;
        this.transactions = new TransactionTemplate(transactionManager);
        this.rawStore = rawStore;
        this.retention = retention;
        this.intake = intake;
        this.instance = instanceId.value();
    }

    /** What one retention run deleted, and in how many statements. */
    public record RetentionReport(long httpKeys, long jobs, long contentKeys, long rawFiles, long orphanedRawFiles,
            long outbox, long intakeFailures, int statements) {
    }

    /** What one recovery run gave back. */
    public record RecoveryReport(long fileClaims, long httpRequests, long jobLeases) {
        boolean isEmpty() { return fileClaims + httpRequests + jobLeases == 0; }
    }

    public RetentionReport retain() {
        int batch = Math.max(1, retention.getBatchSize());
        int[] statements = {0};
        long httpKeys = repeat(batch, statements, () -> jdbc.update(EXPIRED_HTTP_KEYS, batch));
        long jobs = 0;
        long contentKeys = 0;
        long rawFiles = 0;
        // the raw files this run could not unlink: not asked for again by it, so they never hold up the rest
        Set<String> unlinkFailed = new HashSet<>();
        long jobSeconds = retention.getJobMaxAge().toSeconds();
        if (jobSeconds > 0) {
            while (true) {
                statements[0]++;
                List<Map<String, Object>> expired = jdbc.queryForList("SELECT id, key FROM import_job"
                        + " WHERE state = ANY (?::text[]) AND updated_at < now() - make_interval(secs => ?) LIMIT ?",
                        JobState.names(JobState.AT_REST), (double) jobSeconds, batch);
                if (expired.isEmpty()) {
                    break;
                }
                ExpiredJobs deleted = deleteExpired(expired, jobSeconds, statements);
                jobs += deleted.jobs();
                contentKeys += deleted.contentKeys();
                rawFiles += removeRawFiles(batch, statements, unlinkFailed);
                // a job locked meanwhile (SKIP LOCKED) waits for the next run rather than being asked for again
                if (expired.size() < batch || deleted.jobs() == 0) {
                    break;
                }
            }
        }
        long orphaned = nameOrphanedRawFiles(rawFolderName(nextRawFolder.getAndIncrement()), batch, statements);
        // what an earlier run was interrupted before unlinking (and what another instance's run is unlinking now), and
        // the orphans just named
        rawFiles += removeRawFiles(batch, statements, unlinkFailed);
        rawStore.removeLeftovers();
        double outboxSeconds = retention.getOutboxMaxAge().toMillis() / 1000.0;
        long outbox = repeat(batch, statements, () -> jdbc.update(EXPIRED_PUBLISHED_EVENTS, outboxSeconds, batch));
        long intakeFailureSeconds = retention.getIntakeFailures().toSeconds();
        long intakeFailures = intakeFailureSeconds <= 0
                ? 0
                : repeat(batch, statements,
                        () -> jdbc.update(EXPIRED_INTAKE_FAILURES, (double) intakeFailureSeconds, batch));
        RetentionReport report = new RetentionReport(httpKeys, jobs, contentKeys, rawFiles, orphaned, outbox,
                intakeFailures, statements[0]);
        if (httpKeys + jobs + rawFiles + outbox + intakeFailures > 0) {
            LOG.info("retention deleted http-keys={} jobs={} content-keys={} raw-files={} (orphans named: {})"
                    + " outbox={} intake-failures={} in {} statements", httpKeys, jobs, contentKeys, rawFiles, orphaned,
                    outbox, intakeFailures, statements[0]);
        }
        return report;
    }

    /** What one transaction of retention deleted. */
    private record ExpiredJobs(long jobs, long contentKeys) {
    }

    /**
     * Deletes expired jobs (their records and dead letters go with them) and the content keys no job refers to
     * any more, in one transaction holding each key's lock ({@link ContentKeyLock}): a job and its key go
     * together or not at all, whatever interrupts retention, and a key that goes leaves a row in
     * {@code raw_file_unlink} for its raw file ({@link #removeRawFiles}). The keys are locked before any job row,
     * the order intake takes them in (key, then the job it counts a duplicate on), and each job is checked again
     * under the lock: one sent back to work meanwhile stays.
     */
    private ExpiredJobs deleteExpired(List<Map<String, Object>> expired, long jobSeconds, int[] statements) {
        String[] ids = expired.stream().map(row -> row.get("id").toString()).toArray(String[]::new);
        List<String> candidateKeys = expired.stream().map(row -> (String) row.get("key")).toList();
        return transactions.execute(status -> {
            // a job's quarantine goes with it, and a file of millions of bad records has that many
            DatabaseTimeouts.noTimeLimitInThisTransaction(jdbc);
            // lockAll takes them in one order for every batch: two retention runs never wait on each other in a circle
            contentKeyLock.lockAll(candidateKeys);
            statements[0] += 3;
            List<String> keys = jdbc.queryForList("""
                    WITH doomed AS (
                      SELECT id FROM import_job WHERE id = ANY (?::uuid[]) AND state = ANY (?::text[])
                        AND updated_at < now() - make_interval(secs => ?)
                      FOR UPDATE SKIP LOCKED)
                    DELETE FROM import_job j USING doomed d WHERE j.id = d.id RETURNING j.key""", String.class,
                    ids, JobState.names(JobState.AT_REST), (double) jobSeconds);
            String[] gone = keys.stream().distinct().toArray(String[]::new);
            // a file's content key stays while any job refers to it; each key is looked up among the jobs once,
            // for its key row and its raw file alike
            return jdbc.query(UNUSED_KEYS_DELETED, (ResultSet rs) -> {
                List<String> unused = new ArrayList<>();
                long contentKeys = 0;
                while (rs.next()) {
                    unused.add(rs.getString(1));
                    contentKeys = rs.getLong(2);
                }
                if (!unused.isEmpty()) {
                    statements[0]++;
                    jdbc.update("INSERT INTO raw_file_unlink (key) SELECT unnest(?::text[]) ON CONFLICT DO NOTHING",
                            (Object) array(unused));
                }
                return new ExpiredJobs(keys.size(), contentKeys);
            }, (Object) gone);
        });
    }

    /**
     * Unlinks the raw files named in {@code raw_file_unlink}, {@code batch} keys a transaction, until none is left:
     * their keys were deleted by transactions that have committed, so a file is never gone while a key or job that
     * needs it might still be there. Each key's lock is held again (taken before the rows, the order in which
     * {@link #deleteExpired} takes them), and a key that intake registered since (the same bytes arrived again) keeps
     * its file. A key's row goes in the transaction that unlinked its file or kept it: interrupted anywhere, the row
     * stays and a later run unlinks the file. A file that cannot be unlinked keeps its row, is added to {@code failed}
     * (the run's, so no later call of the same run tries it again), and is tried again at the next run.
     */
    private long removeRawFiles(int batch, int[] statements, Set<String> failed) {
        long rawFiles = 0;
        // by key, from the first: the rows of files that could not be unlinked stay, and are passed over, not compared
        // with every one of them in the query (a shared volume that refuses every unlink would make that quadratic)
        String[] after = {""};
        while (true) {
            long[] removed = transactions.execute(status -> {
                // another instance's retention may hold these keys for a whole batch of jobs
                DatabaseTimeouts.noTimeLimitInThisTransaction(jdbc);
                statements[0] += 3;
                List<String> read = jdbc.queryForList("SELECT key FROM raw_file_unlink WHERE key > ?"
                        + " ORDER BY key LIMIT ?", String.class, after[0], batch);
                if (read.isEmpty()) {
                    return null;
                }
                after[0] = read.get(read.size() - 1);
                List<String> keys = read.stream().filter(key -> !failed.contains(key)).toList();
                if (keys.isEmpty()) {
                    return new long[] {0};
                }
                contentKeyLock.lockAll(keys);
                List<String> unused = jdbc.queryForList("SELECT k FROM unnest(?::text[]) AS k"
                        + " WHERE NOT EXISTS (SELECT 1 FROM content_key c WHERE c.key = k)"
                        + " AND NOT EXISTS (SELECT 1 FROM import_job j WHERE j.key = k)", String.class,
                        (Object) array(keys));
                List<String> done = new ArrayList<>(keys);
                long unlinked = 0;
                for (String key : unused) {
                    try {
                        if (Files.deleteIfExists(rawStore.pathOf(ContentKey.parse(key)))) {
                            unlinked++;
                        }
                    } catch (IOException e) {
                        done.remove(key);
                        failed.add(key);
                        LOG.warn("retention cannot delete the raw file of {} ({}); it tries again at its next run",
                                key, e.toString());
                    }
                }
                jdbc.update("DELETE FROM raw_file_unlink WHERE key = ANY (?::text[])", (Object) array(done));
                return new long[] {unlinked};
            });
            if (removed == null) {
                return rawFiles;
            }
            rawFiles += removed[0];
        }
    }

    /**
     * Names in raw_file_unlink the files of one of the raw store's folders ({@code raw/{supplier}/{folder}/}) that no
     * key or job refers to and that were written more than {@link #ORPHAN_AGE} ago: bytes put in place by a
     * registration that did not commit (the database went away before its commit, the instance was killed) and that
     * nobody sent again; never one written before this database was made (its migrations' first run). {@link
     * #removeRawFiles} then unlinks them under their key's lock, checked again, as it does a deleted key's file, so
     * bytes registered meanwhile stay. Each run looks through the next folder: a 256th of the files, all of them in 256
     * runs (about eleven days at the hourly default). Returns how many it named.
     */
    long nameOrphanedRawFiles(String folder, int batch, int[] statements) {
        List<String> keys = new ArrayList<>();
        long[] named = {0};
        // a file written before this database was made was put in place by a registration against another one (the
        // embedded database given up for an external one, whose restore is still to come): not an orphan of this one
        Instant databaseMade;
        try {
            statements[0]++;
            databaseMade = jdbc.queryForObject("SELECT min(installed_on)::timestamptz FROM flyway_schema_history",
                    java.sql.Timestamp.class).toInstant();
        } catch (org.springframework.dao.DataAccessException | NullPointerException e) {
            // no history where Flyway keeps it by default (spring.flyway.table set otherwise): no file is taken for an
            // orphan, and the rest of retention runs
            LOG.warn("retention cannot tell when this database was made ({}); it looks for orphaned raw files at its"
                    + " next run", e.toString());
            return 0;
        }
        try {
            rawStore.forEachKeyIn(folder, databaseMade, Instant.now().minus(ORPHAN_AGE), key -> {
                keys.add(key.toString());
                if (keys.size() == batch) {
                    named[0] += nameUnused(keys, statements);
                    keys.clear();
                }
            });
            named[0] += nameUnused(keys, statements);
        } catch (IOException e) {
            LOG.warn("retention cannot look through the raw files in folder {}: {}; it looks again in {} runs", folder,
                    e.toString(), RAW_FOLDERS);
        }
        return named[0];
    }

    private long nameUnused(List<String> keys, int[] statements) {
        if (keys.isEmpty()) {
            return 0;
        }
        statements[0]++;
        return jdbc.update(UNUSED_RAW_FILES_NAMED, (Object) array(keys));
    }

    /** The name of the raw store's folder {@code index} (modulo 256): two lower-case hex digits. */
    static String rawFolderName(int index) {
        return HexFormat.of().toHexDigits((byte) Math.floorMod(index, RAW_FOLDERS));
    }

    /** Gives back what instances whose leases have run out still hold. */
    public RecoveryReport recover() {
        double claimLease = intake.getClaimLease().toMillis() / 1000.0;
        long claims = jdbc.update("DELETE FROM file_claim WHERE claimed_at < now() - make_interval(secs => ?)",
                claimLease);
        long requests = jdbc.update(LAPSED_REQUESTS);
        Long lapsed = jdbc.queryForObject("SELECT count(*) FROM import_job WHERE state IN ('VALIDATING', 'PROCESSING')"
                + " AND lease_until < now()", Long.class);
        // the listener rows of runs that ended without a clean stop (each run has an id of its own by default): every
        // wakeup asks this table whether another instance listens, so it must not grow with the years of restarts
        jdbc.update("DELETE FROM wakeup_listener WHERE listening_until < now() - interval '1 day'");
        RecoveryReport report = new RecoveryReport(claims, requests, lapsed == null ? 0 : lapsed);
        if (!report.isEmpty()) {
            LOG.info("recovery: released file-claims={} http-requests-in-progress={} of instances that are gone;"
                    + " jobs-with-lapsed-leases={} are taken over by the stages", claims, requests, report.jobLeases());
        }
        return report;
    }

    /**
     * Lets go of what this instance id held in its previous run (it crashed or was killed): nothing of this
     * run holds anything yet, because no route has started.
     */
    public RecoveryReport releaseOwn() {
        // owner: the id, a slash and what of the run held it (claims: the id alone before they carried a run's
        // token); starts_with, not LIKE, which would read an id's '_' or '%' as a wildcard
        long claims = jdbc.update("DELETE FROM file_claim WHERE owner = ? OR starts_with(owner, ? || '/')", instance,
                instance);
        long requests = jdbc.update("DELETE FROM http_request WHERE state = 'IN_PROGRESS'"
                + " AND starts_with(owner, ? || '/')", instance);
        // jobs: the id, a slash and the claim's token (the id alone before leases were a claim's own)
        long leases = jdbc.update("UPDATE import_job SET lease_until = now() - interval '1 second'"
                + " WHERE (lease_owner = ? OR starts_with(lease_owner, ? || '/'))"
                + " AND state IN ('VALIDATING', 'PROCESSING')", instance, instance);
        // that run is over, and so are its sends to Kafka: its slices may be taken at once
        long slices = jdbc.update("UPDATE outbox_lease SET expires_at = NULL WHERE starts_with(owner, ? || '/')"
                + " AND expires_at IS NOT NULL", instance);
        RecoveryReport report = new RecoveryReport(claims, requests, leases);
        LOG.info("recovery at start of instance {}: released file-claims={} http-requests-in-progress={} job-leases={}"
                + " outbox-slices={} held by its previous run", instance, claims, requests, leases, slices);
        return report;
    }

    private static String[] array(List<String> values) {
        // pgjdbc sends a String[] as text[]
        return values.toArray(new String[0]);
    }

    private static long repeat(int batch, int[] statements, java.util.function.IntSupplier delete) {
        long total = 0;
        int deleted;
        do {
            statements[0]++;
            deleted = delete.getAsInt();
            total += deleted;
        } while (deleted >= batch);
        return total;
    }

    @Override
    public void beforeApplicationStart(CamelContext camelContext) {
        try {
            releaseOwn();
        } catch (RuntimeException e) {
            // the database may not answer yet; the periodic recovery catches up once leases run out
            LOG.warn("recovery at start could not run: {}", e.getMessage());
        }
    }

    @Override
    public void afterApplicationStart(CamelContext camelContext) {
        // the periodic part runs in routes/housekeeping.camel.yaml
    }
}
