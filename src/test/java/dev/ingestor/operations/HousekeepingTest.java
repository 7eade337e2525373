package dev.ingestor.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayInputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.InstanceId;
import dev.ingestor.config.RetentionSettings;
import dev.ingestor.intake.ContentKeyLock;
import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.intake.IntakeResult;
import dev.ingestor.intake.IntakeSettings;
import dev.ingestor.intake.RawStore;
import dev.ingestor.intake.StoredContent;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.LockHolder;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Retention deletes only what has expired, in bounded batches; recovery gives back what the dead still hold.
 * In the shared context, with its retention ages (application.yaml's: jobs 365 days, intake failures 90 days);
 * the batch size, which retention reads at each run, is made small for each test and given back after it.
 */
class HousekeepingTest extends IngestorTestSupport {

    /** Rows per retention statement here, so a handful of rows takes several statements. */
    private static final int BATCH_SIZE = 2;

    @Autowired
    Housekeeping housekeeping;
    @Autowired
    RawStore rawStore;
    @Autowired
    InstanceId instanceId;
    @Autowired
    RetentionSettings retention;

    private int sharedBatchSize;
    private boolean timerWasRunning;

    @BeforeEach
    void noRetentionButTheTests() throws Exception {
        assertThat(retention.getJobMaxAge()).as("the job ages below are chosen for it").isEqualTo(Duration.ofDays(365));
        assertThat(retention.getIntakeFailures()).as("the failure ages below are chosen for it")
                .isEqualTo(Duration.ofDays(90));
        sharedBatchSize = retention.getBatchSize();
        retention.setBatchSize(BATCH_SIZE);
        // the tests run retention and recovery themselves, at the moments they choose; the timer's run (10 s after
        // start) would delete their expired jobs at a moment of its own
        timerWasRunning = camelContext.getRouteController().getRouteStatus("housekeeping").isStarted();
        camelContext.getRouteController().stopRoute("housekeeping");
    }

    @AfterEach
    void giveTheSharedContextBack() throws Exception {
        retention.setBatchSize(sharedBatchSize);
        if (timerWasRunning) {
            camelContext.getRouteController().startRoute("housekeeping");
        }
    }

    private void request(String key, String expires) {
        jdbc.update("INSERT INTO http_request (supplier, idempotency_key, fingerprint, state, owner, expires_at)"
                + " VALUES ('ACME', ?, repeat('a', 64), 'COMPLETED', 'test', now() + ?::interval)", key, expires);
    }

    /** A finished file job as intake and the stages would leave it, last touched {@code age} ago. */
    private StoredContent job(String state, String age, String content) throws Exception {
        StoredContent stored = rawStore.store(new ByteArrayInputStream(content.getBytes(StandardCharsets.UTF_8)),
                "ACME", null);
        jdbc.update("INSERT INTO content_key (key, supplier, sha256, created_by) VALUES (?, 'ACME', ?, 'test')",
                stored.key().toString(), stored.sha256());
        UUID id = UUID.randomUUID();
        // an unfinished job is held by a worker elsewhere (a live lease): this context's own workers must not
        // take it and change its records while the test looks at what retention left
        boolean unfinished = state.equals("VALIDATING") || state.equals("PROCESSING");
        jdbc.update(
                "INSERT INTO import_job (id, supplier, state, key, file_name, size, source, updated_at, lease_owner, lease_until)"
                        + " VALUES (?, 'ACME', ?, ?, 'f.csv', ?, 'test', now() - ?::interval, ?, now() + ?::interval)",
                id, state,
                stored.key().toString(), stored.size(), age, unfinished ? "elsewhere" : null,
                unfinished ? "1 hour" : null);
        jdbc.update(
                "INSERT INTO job_record (job_id, record_no, line, outcome, reason) VALUES (?, 1, 2, 'QUARANTINED', 'r')",
                id);
        return stored;
    }

    @Test
    void retentionDeletesOnlyWhatHasExpiredInBatches() throws Exception {
        for (int i = 0; i < 5; i++) {
            request("old-" + i, "-1 day");
        }
        request("fresh", "29 days");
        // expired while its request still runs (a TTL shorter than the request): kept until the request ends
        jdbc.update("INSERT INTO http_request (supplier, idempotency_key, fingerprint, state, owner, lease_until,"
                + " expires_at) VALUES ('ACME', 'running', repeat('a', 64), 'IN_PROGRESS', 'test/1',"
                + " now() + interval '1 hour', now() - interval '1 day'), ('ACME', 'gone', repeat('a', 64),"
                + " 'IN_PROGRESS', 'test/1', now() - interval '1 minute', now() - interval '1 day')");
        StoredContent old1 = job("COMPLETED", "400 days", "old one");
        StoredContent old2 = job("FAILED", "400 days", "old two");
        StoredContent old3 = job("REJECTED", "400 days", "old three");
        StoredContent recent = job("COMPLETED", "2 days", "recent");
        StoredContent stuck = job("PROCESSING", "400 days", "unfinished");
        jdbc.update("INSERT INTO outbox_published (id, event_id, topic, event_key, payload, created_at, published_at)"
                + " VALUES (1, gen_random_uuid(), 't', 'k', '{}', now(), now() - interval '8 days'),"
                + " (2, gen_random_uuid(), 't', 'k', '{}', now(), now() - interval '1 day')");
        jdbc.update(
                "INSERT INTO outbox (event_id, topic, event_key, payload) VALUES (gen_random_uuid(), 't', 'k', '{}')");

        Housekeeping.RetentionReport report = housekeeping.retain();

        assertThat(report.httpKeys()).isEqualTo(6);
        assertThat(jdbc.queryForList("SELECT idempotency_key FROM http_request", String.class))
                .containsExactlyInAnyOrder("fresh", "running");
        assertThat(report.jobs()).isEqualTo(3);
        assertThat(jdbc.queryForList("SELECT key FROM import_job", String.class))
                .containsExactlyInAnyOrder(recent.key().toString(), stuck.key().toString());
        assertThat(jdbc.queryForObject("SELECT count(*) FROM job_record", Long.class)).isEqualTo(2);
        assertThat(jdbc.queryForList("SELECT key FROM content_key", String.class))
                .containsExactlyInAnyOrder(recent.key().toString(), stuck.key().toString());
        assertThat(old1.path()).doesNotExist();
        assertThat(old2.path()).doesNotExist();
        assertThat(old3.path()).doesNotExist();
        assertThat(recent.path()).exists();
        assertThat(stuck.path()).exists();
        assertThat(report.outbox()).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_all", Long.class)).isEqualTo(2);
        // 2 rows per statement: 5 keys took 3 statements, and so on
        assertThat(report.statements()).isGreaterThanOrEqualTo(3 + 2 + 1);
    }

    @Test
    void aKeyAnotherJobStillUsesKeepsItsRowAndRawFile() throws Exception {
        String content = "source_id,sku,quantity,delivery_date\nS-" + UUID.randomUUID() + ",SKU,1,2026-12-01\n";
        StoredContent shared = job("COMPLETED", "400 days", content);
        // a later job of the same bytes: an item batch, whose jobs share a key when a partner sends the same items
        // under another request key (only a file's key is one job's)
        jdbc.update("INSERT INTO import_job (id, supplier, state, key, file_name, size, source, updated_at,"
                + " request_key) VALUES (?, 'ACME', 'COMPLETED', ?, 'items.jsonl', ?, 'http', now() - interval"
                + " '2 days', 'again')", UUID.randomUUID(), shared.key().toString(), shared.size());

        Housekeeping.RetentionReport report = housekeeping.retain();

        assertThat(report.jobs()).isEqualTo(1);
        assertThat(report.contentKeys()).isZero();
        assertThat(report.rawFiles()).isZero();
        assertThat(jobsOf(shared)).isEqualTo(1);
        assertThat(keysOf(shared)).isEqualTo(1);
        assertThat(shared.path()).hasContent(content);
    }

    @Test
    void retentionFindsOldPublishedEventsThroughTheArchivesIndex() {
        // an archive of a week of events, the oldest few past their age
        jdbc.update("INSERT INTO outbox_published (id, event_id, topic, event_key, payload, created_at, published_at)"
                + " SELECT g, gen_random_uuid(), 't', 'k', '{}', now(), now() - make_interval(secs => g * 60)"
                + " FROM generate_series(1, 20000) g");
        jdbc.execute("ANALYZE outbox_published");
        double sixDays = java.time.Duration.ofDays(6).toSeconds();
        String plan = String.join("\n", jdbc.queryForList("EXPLAIN " + Housekeeping.EXPIRED_PUBLISHED_EVENTS,
                String.class, sixDays, 1000));
        assertThat(plan).as(plan).contains("outbox_published_at").doesNotContain("Seq Scan");

        long old = jdbc.queryForObject("SELECT count(*) FROM outbox_published"
                + " WHERE published_at < now() - interval '7 days'", Long.class);
        assertThat(old).isPositive();
        assertThat(housekeeping.retain().outbox()).isEqualTo(old);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_published", Long.class)).isEqualTo(20000 - old);
    }

    @Test
    void retentionFindsExpiredKeysAndOldIntakeFailuresByIndexNotByScanningThem() {
        // as many as a busy year keeps (YearOfDataBenchmark), the oldest 2,000 past their retention: the statistics
        // then expect a full batch, for which IN (SELECT ... LIMIT) was planned as a scan of the table
        jdbc.update("""
                INSERT INTO intake_failure (supplier, source, file_name, outcome, reason, occurred_at)
                SELECT 'ACME', 'file-drop', 'f-' || g || '.csv', 'rejected', 'r',
                       now() - interval '90 days' + make_interval(mins => g - 2000)
                FROM generate_series(1, 100000) g""");
        jdbc.update("""
                INSERT INTO http_request (supplier, idempotency_key, fingerprint, state, owner, status, headers, body,
                                          created_at, completed_at, expires_at)
                SELECT 'ACME', 'k-' || g, repeat('0', 64), 'COMPLETED', 'test/1', 202, '{}', convert_to('{}', 'UTF8'),
                       now(), now(), now() + make_interval(mins => g - 2000)
                FROM generate_series(1, 100000) g""");
        jdbc.execute("ANALYZE intake_failure");
        jdbc.execute("ANALYZE http_request");
        double ninetyDays = java.time.Duration.ofDays(90).toSeconds();
        String failures = String.join("\n", jdbc.queryForList("EXPLAIN " + Housekeeping.EXPIRED_INTAKE_FAILURES,
                String.class, ninetyDays, 1000));
        assertThat(failures).as(failures).doesNotContain("Seq Scan");
        String keys = String.join("\n", jdbc.queryForList("EXPLAIN " + Housekeeping.EXPIRED_HTTP_KEYS,
                String.class, 1000));
        assertThat(keys).as(keys).contains("http_request_expires").doesNotContain("Seq Scan");
        String lapsed = String.join("\n", jdbc.queryForList("EXPLAIN " + Housekeeping.LAPSED_REQUESTS, String.class));
        assertThat(lapsed).as(lapsed).contains("http_request_in_progress").doesNotContain("Seq Scan");

        retention.setBatchSize(1000); // the shipped size, as planned above (the class's 2 would take 2,000 rounds)
        long oldFailures = jdbc.queryForObject("SELECT count(*) FROM intake_failure"
                + " WHERE occurred_at < now() - interval '90 days'", Long.class);
        long expiredKeys = jdbc.queryForObject("SELECT count(*) FROM http_request WHERE expires_at < now()",
                Long.class);
        Housekeeping.RetentionReport report = housekeeping.retain();
        assertThat(report.intakeFailures()).isEqualTo(oldFailures).isPositive();
        assertThat(report.httpKeys()).isEqualTo(expiredKeys).isPositive();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM intake_failure", Long.class))
                .isEqualTo(100000 - oldFailures);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM http_request", Long.class))
                .isEqualTo(100000 - expiredKeys);
    }

    @Test
    void anItemBatchJobPastItsRetentionGoesWithItsStoredBatch() throws Exception {
        // an item batch's job is keyed by its stored batch, which has no content_key row: retention must still
        // find the batch's file unused and remove it with the job
        HttpResponse<String> pushed = post("/api/v1/suppliers/ACME/items", ACME_KEY, "application/json",
                """
                        {"items": [{"source_id": "R-1", "sku": "SKU-1", "quantity": 1, "delivery_date": "2026-12-01"}]}"""
                        .getBytes(StandardCharsets.UTF_8),
                "Idempotency-Key", "retention-" + UUID.randomUUID());
        assertThat(pushed.statusCode()).as(pushed.body()).isBetween(200, 299);
        awaitSettled();
        String key = jdbc.queryForObject("SELECT key FROM import_job WHERE request_key IS NOT NULL", String.class);
        java.nio.file.Path batch = rawStore.pathOf(dev.ingestor.job.ContentKey.parse(key));
        assertThat(batch).exists();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM content_key WHERE key = ?", Long.class, key)).isZero();

        jdbc.update("UPDATE import_job SET updated_at = now() - interval '400 days' WHERE key = ?", key);
        Housekeeping.RetentionReport report = housekeeping.retain();

        assertThat(report.jobs()).isEqualTo(1);
        assertThat(report.rawFiles()).isEqualTo(1);
        assertThat(batch).doesNotExist();
    }

    @Test
    void intakeFailuresOlderThanTheirRetentionGoInBatches() {
        for (int i = 0; i < 3; i++) {
            jdbc.update("INSERT INTO intake_failure (supplier, source, file_name, outcome, reason, occurred_at)"
                    + " VALUES ('ACME', 'file-drop', ?, 'rejected', 'r', now() - interval '91 days')",
                    "old-" + i + ".csv");
        }
        jdbc.update("INSERT INTO intake_failure (supplier, source, file_name, outcome, reason, occurred_at)"
                + " VALUES ('ACME', 'file-drop', 'recent.csv', 'failed', 'r', now() - interval '89 days')");
        // an old failed file that was retried has done its work; one never retried still waits in .failed/
        jdbc.update("INSERT INTO intake_failure (supplier, source, file_name, outcome, reason, occurred_at, retried_at)"
                + " VALUES ('ACME', 'file-drop', 'old-retried.csv', 'failed', 'r', now() - interval '91 days', now())");
        jdbc.update("INSERT INTO intake_failure (supplier, source, file_name, outcome, reason, occurred_at, location)"
                + " VALUES ('ACME', 'file-drop', 'old-waiting.csv', 'failed', 'r', now() - interval '91 days',"
                + " '/inbox/ACME/.failed/old-waiting.csv')");
        // a file that failed on an SFTP server stays there and is read again at the next poll: no retry is waiting
        // for its row, and each poll that failed left one
        jdbc.update("INSERT INTO intake_failure (supplier, source, file_name, outcome, reason, occurred_at, location)"
                + " VALUES ('ACME', 'sftp', 'old-remote.csv', 'failed', 'r', now() - interval '91 days',"
                + " '/outgoing/old-remote.csv')");

        Housekeeping.RetentionReport report = housekeeping.retain();

        assertThat(report.intakeFailures()).isEqualTo(5);
        assertThat(jdbc.queryForList(
                "SELECT file_name FROM intake_failure WHERE file_name IN ('old-0.csv', 'old-1.csv', 'old-2.csv',"
                        + " 'recent.csv', 'old-retried.csv', 'old-waiting.csv', 'old-remote.csv') ORDER BY file_name",
                String.class))
                .containsExactly("old-waiting.csv", "recent.csv");
    }

    @Test
    void aJobLeasedByThisInstancesPreviousRunIsTakenOverAtOnce() throws Exception {
        // the previous run of this instance validated the jobs, began processing them and was killed; their leases
        // have ten minutes to go, so without recovery the jobs would wait that long. A lease is the id, a slash and
        // the claim's token; the id alone, as leases were before that, is its previous run's too
        String me = instanceId.value();
        List<UUID> ids = new java.util.ArrayList<>();
        for (String lease : List.of(me + "/a-claim-of-the-previous-run", me)) {
            StoredContent content = rawStore
                    .store(new ByteArrayInputStream(
                            ("source_id,sku,quantity,delivery_date\nL-" + ids.size() + ",SKU,1,2026-12-01\n"
                                    + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8)),
                            "ACME", null);
            jdbc.update("INSERT INTO content_key (key, supplier, sha256, created_by) VALUES (?, 'ACME', ?, 'test')",
                    content.key().toString(), content.sha256());
            UUID id = UUID.randomUUID();
            jdbc.update("INSERT INTO import_job (id, supplier, state, key, file_name, size, source, total, quarantined,"
                    + " lease_owner, lease_until) VALUES (?, 'ACME', 'PROCESSING', ?, 'l.csv', ?, 'test', 2, 1, ?,"
                    + " now() + interval '10 minutes')", id, content.key().toString(), content.size(), lease);
            // validation quarantined the second record, the line that is no record
            jdbc.update("INSERT INTO job_record (job_id, record_no, line, outcome, reason)"
                    + " VALUES (?, 2, 3, 'QUARANTINED', 'not a record')", id);
            ids.add(id);
        }
        // on purpose: the workers poll (100 ms) several times, and must leave the leased jobs alone
        Thread.sleep(1000);
        for (UUID id : ids) {
            assertThat(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, id))
                    .isEqualTo("PROCESSING");
        }

        assertThat(housekeeping.releaseOwn().jobLeases()).isEqualTo(2);
        for (UUID id : ids) {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, id)
                            .equals("COMPLETED_WITH_ERRORS"));
            assertThat(jdbc.queryForObject("SELECT accepted FROM import_job WHERE id = ?", Long.class, id))
                    .isEqualTo(1);
        }
    }

    @Test
    void aFileClaimedByAnInstanceThatIsGoneIsReclaimedAndTheFileIngested() throws Exception {
        java.nio.file.Path target = INBOX.resolve("ACME").resolve("orphan.csv");
        jdbc.update(
                "INSERT INTO file_claim (claim_key, owner, claimed_at) VALUES (?, 'gone', now() - interval '11 minutes')",
                target.toAbsolutePath().toString());
        assertThat(housekeeping.recover().fileClaims()).isEqualTo(1);
        drop("ACME", "orphan.csv", ("source_id,sku,quantity,delivery_date\nO-1,SKU,1,2026-12-01\n" + UUID.randomUUID())
                .getBytes(StandardCharsets.UTF_8));
        awaitJobs(1);
    }

    @Test
    void atStartAnInstanceLetsGoOfTheClaimsOfItsEarlierRunsAndOfNoOtherInstance() {
        String me = instanceId.value();
        jdbc.update("INSERT INTO file_claim (claim_key, owner) VALUES ('/a.csv', ?), ('/b.csv', ? || '/run-1'),"
                + " ('/c.csv', ? || 'x/run-1'), ('/d.csv', 'other/' || ?)", me, me, me, me);

        assertThat(housekeeping.releaseOwn().fileClaims()).isEqualTo(2);
        assertThat(jdbc.queryForList("SELECT claim_key FROM file_claim ORDER BY claim_key", String.class))
                .containsExactly("/c.csv", "/d.csv");
    }

    @Test
    void anIdWithTheCharactersOfAPatternLetsGoOfItsOwnEarlierRunsOnly(@Autowired IntakeSettings intake,
            @Autowired ContentKeyLock keyLock, @Autowired PlatformTransactionManager transactions) {
        // '_' and '%' are wildcards to LIKE: "ingest_1" must not take what "ingestx1" holds
        IngestorProperties properties = new IngestorProperties();
        properties.setInstanceId("ingest_1%");
        Housekeeping mine = new Housekeeping(jdbc, rawStore, retention, intake, new InstanceId(properties), keyLock,
                transactions);
        jdbc.update("INSERT INTO file_claim (claim_key, owner) VALUES ('/mine.csv', 'ingest_1%/run-1'),"
                + " ('/theirs.csv', 'ingestx1x/run-1')");
        jdbc.update("INSERT INTO http_request (supplier, idempotency_key, fingerprint, state, owner, lease_until,"
                + " expires_at) VALUES ('ACME', 'k-mine', repeat('a', 64), 'IN_PROGRESS', 'ingest_1%/1',"
                + " now() + interval '1 minute', now() + interval '1 day'), ('ACME', 'k-theirs', repeat('a', 64),"
                + " 'IN_PROGRESS', 'ingestx1x/1', now() + interval '1 minute', now() + interval '1 day')");
        jdbc.update("INSERT INTO outbox_lease (topic, slice, owner, expires_at) VALUES"
                + " ('housekeeping-test', 0, 'ingest_1%/relay', now() + interval '1 minute'),"
                + " ('housekeeping-test', 1, 'ingestx1x/relay', now() + interval '1 minute')");
        try {
            Housekeeping.RecoveryReport report = mine.releaseOwn();

            assertThat(report.fileClaims()).isEqualTo(1);
            assertThat(report.httpRequests()).isEqualTo(1);
            assertThat(jdbc.queryForList("SELECT claim_key FROM file_claim", String.class))
                    .containsExactly("/theirs.csv");
            assertThat(jdbc.queryForList("SELECT idempotency_key FROM http_request", String.class))
                    .containsExactly("k-theirs");
            assertThat(jdbc.queryForList("SELECT owner FROM outbox_lease WHERE topic = 'housekeeping-test'"
                    + " AND expires_at IS NOT NULL", String.class)).containsExactly("ingestx1x/relay");
        } finally {
            jdbc.update("DELETE FROM outbox_lease WHERE topic = 'housekeeping-test'");
        }
    }

    @Test
    void recoveryReleasesWhatLapsedLeasesHold() {
        jdbc.update(
                "INSERT INTO file_claim (claim_key, owner, claimed_at) VALUES ('/gone/a.csv', 'dead', now() - interval '1 hour'),"
                        + " ('/live/b.csv', 'alive', now())");
        jdbc.update(
                "INSERT INTO http_request (supplier, idempotency_key, fingerprint, state, owner, lease_until, expires_at)"
                        + " VALUES ('ACME', 'k-dead', repeat('a', 64), 'IN_PROGRESS', 'dead/1', now() - interval '1 minute', now() + interval '1 day'),"
                        + " ('ACME', 'k-live', repeat('a', 64), 'IN_PROGRESS', 'alive/1', now() + interval '1 minute', now() + interval '1 day')");
        Housekeeping.RecoveryReport report = housekeeping.recover();
        assertThat(report.fileClaims()).isEqualTo(1);
        assertThat(report.httpRequests()).isEqualTo(1);
        assertThat(jdbc.queryForList("SELECT claim_key FROM file_claim", String.class)).containsExactly("/live/b.csv");
        assertThat(jdbc.queryForList("SELECT idempotency_key FROM http_request", String.class))
                .containsExactly("k-live");
    }

    /**
     * Bytes put in place by a registration that never committed (the database gone before its commit) and never sent
     * again: unlinked once they are a day old. A file whose key is in use stays, so does a young one, and so does one
     * whose bytes were registered after it was named.
     */
    @Test
    void rawFilesNoKeyRefersToGoOnceTheyAreADayOld() throws Exception {
        // this database as made two days ago: a file older than that belongs to another one, and stays
        java.sql.Timestamp made = jdbc.queryForObject("SELECT min(installed_on) FROM flyway_schema_history",
                java.sql.Timestamp.class);
        jdbc.update("UPDATE flyway_schema_history SET installed_on = installed_on - interval '2 days'");
        try {
            orphansGoExceptThoseOfAnotherDatabase();
        } finally {
            jdbc.update("UPDATE flyway_schema_history SET installed_on = installed_on + interval '2 days'");
            assertThat(jdbc.queryForObject("SELECT min(installed_on) FROM flyway_schema_history",
                    java.sql.Timestamp.class)).isEqualTo(made);
        }
    }

    private void orphansGoExceptThoseOfAnotherDatabase() throws Exception {
        StoredContent ofAnotherDatabase = placedWithoutKey("of another database");
        java.nio.file.Files.setLastModifiedTime(ofAnotherDatabase.path(),
                java.nio.file.attribute.FileTime.from(java.time.Instant.now().minus(Duration.ofDays(3))));
        StoredContent orphan = placedWithoutKey("orphan");
        StoredContent young = placedWithoutKey("young");
        StoredContent registeredLater = placedWithoutKey("registered later");
        StoredContent used = job("COMPLETED", "2 days", "source_id,sku,quantity,delivery_date\nU-" + UUID.randomUUID()
                + ",SKU,1,2026-12-01\n");
        for (StoredContent old : List.of(orphan, registeredLater, used)) {
            java.nio.file.Files.setLastModifiedTime(old.path(),
                    java.nio.file.attribute.FileTime.from(java.time.Instant.now().minus(Duration.ofHours(25))));
        }
        int[] statements = {0};
        long named = 0;
        for (StoredContent content : List.of(orphan, young, registeredLater, used, ofAnotherDatabase)) {
            named += housekeeping.nameOrphanedRawFiles(content.key().sha256().substring(0, 2), BATCH_SIZE, statements);
        }
        assertThat(named).isGreaterThanOrEqualTo(2);
        // the same bytes arrive again and are registered before the file is unlinked
        jdbc.update("INSERT INTO content_key (key, supplier, sha256, created_by) VALUES (?, 'ACME', ?, 'test')",
                registeredLater.key().toString(), registeredLater.sha256());

        assertThat(housekeeping.retain().rawFiles()).isGreaterThanOrEqualTo(1);

        assertThat(orphan.path()).doesNotExist();
        assertThat(young.path()).exists();
        assertThat(registeredLater.path()).exists();
        assertThat(used.path()).exists();
        assertThat(ofAnotherDatabase.path()).exists();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM raw_file_unlink WHERE key = ANY (?::text[])", Long.class,
                (Object) new String[] {orphan.key().toString(), registeredLater.key().toString()})).isZero();
    }

    /** Retention looks through each of the raw store's 256 folders once in 256 runs, from wherever it starts. */
    @Test
    void theRawFoldersAreLookedThroughInTurn() {
        java.util.Set<String> names = new java.util.HashSet<>();
        for (int run = Integer.MAX_VALUE - 100; names.size() < 300 && run != Integer.MAX_VALUE - 100 + 256; run++) {
            names.add(Housekeeping.rawFolderName(run));
        }
        assertThat(names).hasSize(256).allMatch(name -> name.matches("[0-9a-f]{2}"));
    }

    private StoredContent placedWithoutKey(String what) throws Exception {
        return rawStore.store(
                new ByteArrayInputStream((what + " " + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8)),
                "ACME", null);
    }

    /** Files that cannot be unlinked, a whole batch of them, do not hold up the files named after them. */
    @Test
    void rawFilesThatCannotBeUnlinkedDoNotHoldUpTheRest() throws Exception {
        List<StoredContent> stored = new ArrayList<>();
        for (int i = 0; i < BATCH_SIZE + 1; i++) {
            stored.add(rawStore.store(new ByteArrayInputStream(("stuck-" + i + "-" + UUID.randomUUID())
                    .getBytes(StandardCharsets.UTF_8)), "ACME", null));
        }
        stored.sort(java.util.Comparator.comparing(content -> content.key().toString()));
        // as retention's deleting transaction names them: one moment, so the keys' order decides
        jdbc.update("INSERT INTO raw_file_unlink (key, since) SELECT unnest(?::text[]), now() - interval '1 hour'",
                (Object) stored.stream().map(content -> content.key().toString()).toArray(String[]::new));
        // the first batch's files cannot be unlinked: a folder with a file in it stands at each path
        for (StoredContent stuck : stored.subList(0, BATCH_SIZE)) {
            java.nio.file.Files.delete(stuck.path());
            java.nio.file.Files.createDirectories(stuck.path().resolve("in-the-way"));
        }
        StoredContent last = stored.get(BATCH_SIZE);

        assertThat(housekeeping.retain().rawFiles()).isEqualTo(1);
        assertThat(last.path()).doesNotExist();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM raw_file_unlink", Long.class)).isEqualTo(BATCH_SIZE);
        for (StoredContent stuck : stored.subList(0, BATCH_SIZE)) {
            java.nio.file.Files.delete(stuck.path().resolve("in-the-way"));
            java.nio.file.Files.delete(stuck.path());
        }
        housekeeping.retain();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM raw_file_unlink", Long.class)).isZero();
    }

    @Test
    void recoveryForgetsTheListenersOfRunsLongGone() {
        jdbc.update("INSERT INTO wakeup_listener (instance, listening_until) VALUES"
                + " ('killed-last-month', now() - interval '30 days'), ('killed-a-minute-ago', now() - interval '1 minute')");
        housekeeping.recover();
        assertThat(jdbc.queryForList("SELECT instance FROM wakeup_listener WHERE instance LIKE 'killed-%'",
                String.class)).containsExactly("killed-a-minute-ago");
        jdbc.update("DELETE FROM wakeup_listener WHERE instance LIKE 'killed-%'");
    }

    @Test
    void bytesArrivingWhileRetentionFreesTheirKeyKeepTheirRawFile() throws Exception {
        String content = "source_id,sku,quantity,delivery_date\nR-" + UUID.randomUUID() + ",SKU,1,2026-12-01\n";
        StoredContent old = job("COMPLETED", "400 days", content);
        // the same bytes arrive again; retention runs at the worst moment: after intake has read and hashed
        // them (and seen their raw file in place) and before it registers their key
        boolean[] retained = {false};
        java.io.InputStream body = new ByteArrayInputStream(content.getBytes(StandardCharsets.UTF_8)) {
            @Override
            public void close() {
                if (!retained[0]) {
                    retained[0] = true;
                    assertThat(housekeeping.retain().contentKeys()).isEqualTo(1);
                }
            }
        };
        org.apache.camel.Exchange exchange = new org.apache.camel.support.DefaultExchange(camelContext);
        exchange.getIn().setBody(body);
        exchange.getIn().setHeader(dev.ingestor.intake.IntakeHeaders.SUPPLIER, "ACME");
        exchange.getIn().setHeader(dev.ingestor.intake.IntakeHeaders.FILE_NAME, "again.csv");
        exchange.getIn().setHeader(dev.ingestor.intake.IntakeHeaders.SOURCE, "test");

        producer.send("direct:intake", exchange);

        assertThat(exchange.getException()).isNull();
        assertThat(retained[0]).isTrue();
        dev.ingestor.intake.IntakeResult result = exchange.getMessage().getBody(dev.ingestor.intake.IntakeResult.class);
        assertThat(result.duplicate()).isFalse();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM import_job WHERE file_name = 'f.csv'", Long.class))
                .isZero();
        assertThat(old.path()).hasContent(content);
        awaitSettled();
        assertThat(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, result.job().id()))
                .isEqualTo("COMPLETED");
        assertThat(old.path()).exists();
    }

    private HttpResponse<String> push(String content, String fileName) throws Exception {
        return post("/api/v1/suppliers/ACME/files", ACME_KEY, "application/octet-stream",
                content.getBytes(StandardCharsets.UTF_8), "X-File-Name", fileName);
    }

    private Exchange arrival(String content, String fileName) {
        Exchange exchange = new DefaultExchange(camelContext);
        exchange.getIn().setBody(content.getBytes(StandardCharsets.UTF_8));
        exchange.getIn().setHeader(IntakeHeaders.SUPPLIER, "ACME");
        exchange.getIn().setHeader(IntakeHeaders.FILE_NAME, fileName);
        exchange.getIn().setHeader(IntakeHeaders.SOURCE, "test");
        return exchange;
    }

    private long jobsOf(StoredContent content) {
        return jdbc.queryForObject("SELECT count(*) FROM import_job WHERE key = ?", Long.class,
                content.key().toString());
    }

    private long keysOf(StoredContent content) {
        return jdbc.queryForObject("SELECT count(*) FROM content_key WHERE key = ?", Long.class,
                content.key().toString());
    }

    @Test
    void retentionEndedBetweenItsStepsLeavesTheJobWithItsKeyAndRawFile() throws Exception {
        String content = "source_id,sku,quantity,delivery_date\nE-" + UUID.randomUUID() + ",SKU,1,2026-12-01\n";
        StoredContent old = job("COMPLETED", "400 days", content);
        String key = old.key().toString();
        try (LockHolder holder = new LockHolder()) {
            int holderPid = holder.pid();
            // the key's lock, as intake holds it while the same bytes arrive
            holder.holdContentKey(key);
            CompletableFuture<Housekeeping.RetentionReport> retention = CompletableFuture
                    .supplyAsync(housekeeping::retain);
            // retention has found the expired job and waits for its key's lock: its connection ends there
            Integer retentionPid = await().atMost(Duration.ofSeconds(20)).until(() -> blockedBy(holderPid),
                    Objects::nonNull);
            assertThat(jdbc.queryForObject("SELECT pg_terminate_backend(?)", Boolean.class, retentionPid)).isTrue();
            assertThatThrownBy(() -> retention.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        }

        // nothing half done: the job, its key and its raw file are all still there
        assertThat(jobsOf(old)).isEqualTo(1);
        assertThat(keysOf(old)).isEqualTo(1);
        assertThat(old.path()).hasContent(content);
        HttpResponse<String> again = push(content, "again.csv");
        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);

        // the next run deletes them together, and the same bytes are new content
        Housekeeping.RetentionReport report = housekeeping.retain();
        assertThat(report.jobs()).isEqualTo(1);
        assertThat(report.contentKeys()).isEqualTo(1);
        assertThat(report.rawFiles()).isEqualTo(1);
        assertThat(jobsOf(old)).isZero();
        assertThat(keysOf(old)).isZero();
        assertThat(old.path()).doesNotExist();
        pushedAgainIsANewJobThatCompletes(content);
        assertThat(old.path()).hasContent(content);
    }

    /**
     * A run whose unlink of a raw file did not happen (here the path holds a folder with a file in it, so the unlink
     * fails; a kill or a database gone after the keys' deletion committed leaves the same) leaves the file to the next
     * run, though its job and key are gone: nothing else could ever find it.
     */
    @Test
    void aRawFileNotUnlinkedWhenItsKeyWentIsUnlinkedByTheNextRun() throws Exception {
        String content = "source_id,sku,quantity,delivery_date\nU-" + UUID.randomUUID() + ",SKU,1,2026-12-01\n";
        StoredContent old = job("COMPLETED", "400 days", content);
        java.nio.file.Path path = old.path();
        java.nio.file.Files.delete(path);
        java.nio.file.Files.createDirectories(path.resolve("in-the-way"));

        Housekeeping.RetentionReport first = housekeeping.retain();
        assertThat(first.jobs()).isEqualTo(1);
        assertThat(first.rawFiles()).isZero();
        assertThat(keysOf(old)).isZero();

        // what the interrupted run left: the raw file, with neither its job nor its key
        java.nio.file.Files.delete(path.resolve("in-the-way"));
        java.nio.file.Files.delete(path);
        java.nio.file.Files.writeString(path, content);
        Housekeeping.RetentionReport next = housekeeping.retain();
        assertThat(next.rawFiles()).isEqualTo(1);
        assertThat(path).doesNotExist();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM raw_file_unlink", Long.class)).isZero();
    }

    @Test
    void retentionWaitsWhileIntakeHoldsTheKeyBetweenFindingItsRawFileAndCommitting() throws Exception {
        String content = "source_id,sku,quantity,delivery_date\nW-" + UUID.randomUUID() + ",SKU,1,2026-12-01\n";
        StoredContent old = job("COMPLETED", "400 days", content);
        String key = old.key().toString();
        // intake pauses inside its transaction: it holds the key's lock and has found the raw file in place, and
        // its INSERT of the key waits for a lock the test holds
        jdbc.execute("CREATE OR REPLACE FUNCTION test_pause_intake() RETURNS trigger LANGUAGE plpgsql AS"
                + " $$ BEGIN PERFORM pg_advisory_xact_lock(4242); RETURN NEW; END $$");
        jdbc.execute("CREATE TRIGGER test_pause_intake BEFORE INSERT ON content_key FOR EACH ROW"
                + " WHEN (NEW.key = '" + key + "') EXECUTE FUNCTION test_pause_intake()");
        Exchange arrival = arrival(content, "window.csv");
        Housekeeping.RetentionReport report;
        try (LockHolder holder = new LockHolder()) {
            int holderPid = holder.pid();
            holder.query("SELECT 1 FROM (SELECT pg_advisory_lock(4242)) l");
            CompletableFuture<Exchange> intake = CompletableFuture
                    .supplyAsync(() -> producer.send("direct:intake", arrival));
            int intakePid = await().atMost(Duration.ofSeconds(20)).until(() -> blockedBy(holderPid), Objects::nonNull);

            // retention runs inside intake's window: it must wait for intake's commit, not delete under it
            CompletableFuture<Housekeeping.RetentionReport> retention = CompletableFuture
                    .supplyAsync(housekeeping::retain);
            await().atMost(Duration.ofSeconds(20)).until(() -> retention.isDone() || blockedBy(intakePid) != null);
            assertThat(retention).as("retention waits for the key intake holds").isNotDone();
            assertThat(old.path()).exists();
            assertThat(jobsOf(old)).isEqualTo(1);

            holder.query("SELECT 1 FROM (SELECT pg_advisory_unlock(4242)) l");
            intake.get(20, TimeUnit.SECONDS);
            report = retention.get(20, TimeUnit.SECONDS);
        } finally {
            jdbc.execute("DROP TRIGGER IF EXISTS test_pause_intake ON content_key");
            jdbc.execute("DROP FUNCTION IF EXISTS test_pause_intake()");
        }

        // intake counted the arrival on the job that was there; retention then deleted job, key and file together
        assertThat(arrival.getException()).isNull();
        assertThat(arrival.getMessage().getBody(IntakeResult.class).duplicate()).isTrue();
        assertThat(report.jobs()).isEqualTo(1);
        assertThat(jobsOf(old)).isZero();
        assertThat(keysOf(old)).isZero();
        assertThat(old.path()).doesNotExist();
        // and the bytes arriving once more are a new job that finds its raw file
        pushedAgainIsANewJobThatCompletes(content);
    }

    /** The same bytes pushed again are new content: 202, and a job that finds its raw file and completes. */
    private void pushedAgainIsANewJobThatCompletes(String content) throws Exception {
        HttpResponse<String> fresh = push(content, "fresh.csv");
        assertThat(fresh.statusCode()).as(fresh.body()).isEqualTo(202);
        awaitSettled();
        assertThat(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?::uuid", String.class,
                JSON.readTree(fresh.body()).get("id").asString())).isEqualTo("COMPLETED");
    }
}
