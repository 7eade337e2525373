package dev.ingestor.operations;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

import dev.ingestor.config.InstanceId;
import dev.ingestor.intake.RawStore;
import dev.ingestor.intake.StoredContent;
import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Retention deletes only what has expired, in bounded batches; recovery gives back what the dead still hold. */
// its own properties make its own Spring context; closed afterwards, so that no second set of routes keeps
// polling the shared inbox and database while other test classes run
@org.springframework.test.annotation.DirtiesContext
class HousekeepingTest extends IngestorTestSupport {

    @DynamicPropertySource
    static void smallBatches(DynamicPropertyRegistry registry) {
        registry.add("ingestor.retention.batch-size", () -> "2");
        registry.add("ingestor.retention.job-max-age", () -> "30d");
        registry.add("ingestor.retention.intake-failures", () -> "10d");
    }

    @Autowired
    Housekeeping housekeeping;
    @Autowired
    RawStore rawStore;
    @Autowired
    InstanceId instanceId;

    private void request(String key, String expires) {
        jdbc.update("INSERT INTO http_request (supplier, idempotency_key, fingerprint, state, owner, expires_at)"
                + " VALUES ('ACME', ?, repeat('a', 64), 'COMPLETED', 'test', now() + ?::interval)", key, expires);
    }

    /** A finished file job as intake and the stages would leave it, last touched {@code age} ago. */
    private StoredContent job(String state, String age, String content) throws Exception {
        StoredContent stored = rawStore.store(new ByteArrayInputStream(content.getBytes(StandardCharsets.UTF_8)), "ACME", null);
        jdbc.update("INSERT INTO content_key (key, supplier, sha256, created_by) VALUES (?, 'ACME', ?, 'test')",
                stored.key().toString(), stored.sha256());
        UUID id = UUID.randomUUID();
        // an unfinished job is held by a worker elsewhere (a live lease): this context's own workers must not
        // take it and change its records while the test looks at what retention left
        boolean unfinished = state.equals("VALIDATING") || state.equals("PROCESSING");
        jdbc.update("INSERT INTO import_job (id, supplier, state, key, file_name, size, source, updated_at, lease_owner, lease_until)"
                + " VALUES (?, 'ACME', ?, ?, 'f.csv', ?, 'test', now() - ?::interval, ?, now() + ?::interval)", id, state,
                stored.key().toString(), stored.size(), age, unfinished ? "elsewhere" : null, unfinished ? "1 hour" : null);
        jdbc.update("INSERT INTO job_record (job_id, record_no, line, outcome, reason) VALUES (?, 1, 2, 'QUARANTINED', 'r')", id);
        return stored;
    }

    @Test
    void retentionDeletesOnlyWhatHasExpiredInBatches() throws Exception {
        for (int i = 0; i < 5; i++) {
            request("old-" + i, "-1 day");
        }
        request("fresh", "29 days");
        StoredContent old1 = job("COMPLETED", "40 days", "old one");
        StoredContent old2 = job("FAILED", "40 days", "old two");
        StoredContent old3 = job("REJECTED", "40 days", "old three");
        StoredContent recent = job("COMPLETED", "2 days", "recent");
        StoredContent stuck = job("PROCESSING", "40 days", "unfinished");
        jdbc.update("INSERT INTO outbox (event_id, topic, event_key, payload, published_at) VALUES"
                + " (gen_random_uuid(), 't', 'k', '{}', now() - interval '8 days'),"
                + " (gen_random_uuid(), 't', 'k', '{}', now() - interval '1 day'),"
                + " (gen_random_uuid(), 't', 'k', '{}', NULL)");

        Housekeeping.RetentionReport report = housekeeping.retain();

        assertThat(report.httpKeys()).isEqualTo(5);
        assertThat(jdbc.queryForList("SELECT idempotency_key FROM http_request", String.class)).containsExactly("fresh");
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
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox", Long.class)).isEqualTo(2);
        // 2 rows per statement: 5 keys took 3 statements, and so on
        assertThat(report.statements()).isGreaterThanOrEqualTo(3 + 2 + 1);
    }

    @Test
    void intakeFailuresOlderThanTheirRetentionGoInBatches() {
        for (int i = 0; i < 3; i++) {
            jdbc.update("INSERT INTO intake_failure (supplier, source, file_name, outcome, reason, occurred_at)"
                    + " VALUES ('ACME', 'file-drop', ?, 'rejected', 'r', now() - interval '11 days')", "old-" + i + ".csv");
        }
        jdbc.update("INSERT INTO intake_failure (supplier, source, file_name, outcome, reason, occurred_at)"
                + " VALUES ('ACME', 'file-drop', 'recent.csv', 'failed', 'r', now() - interval '9 days')");
        // an old failed file that was retried has done its work; one never retried still waits in .failed/
        jdbc.update("INSERT INTO intake_failure (supplier, source, file_name, outcome, reason, occurred_at, retried_at)"
                + " VALUES ('ACME', 'file-drop', 'old-retried.csv', 'failed', 'r', now() - interval '11 days', now())");
        jdbc.update("INSERT INTO intake_failure (supplier, source, file_name, outcome, reason, occurred_at)"
                + " VALUES ('ACME', 'file-drop', 'old-waiting.csv', 'failed', 'r', now() - interval '11 days')");

        Housekeeping.RetentionReport report = housekeeping.retain();

        assertThat(report.intakeFailures()).isEqualTo(4);
        assertThat(jdbc.queryForList("SELECT file_name FROM intake_failure WHERE file_name IN ('old-0.csv', 'old-1.csv',"
                + " 'old-2.csv', 'recent.csv', 'old-retried.csv', 'old-waiting.csv') ORDER BY file_name", String.class))
                .containsExactly("old-waiting.csv", "recent.csv");
    }

    @Test
    void aJobLeasedByThisInstancesPreviousRunIsTakenOverAtOnce() throws Exception {
        // the previous run of this instance validated the job, began processing it and was killed; its lease has
        // ten minutes to go, so without recovery the job would wait that long
        StoredContent content = rawStore.store(new ByteArrayInputStream(("source_id,sku,quantity,delivery_date\nL-1,SKU,1,2026-12-01\n"
                + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8)), "ACME", null);
        jdbc.update("INSERT INTO content_key (key, supplier, sha256, created_by) VALUES (?, 'ACME', ?, 'test')",
                content.key().toString(), content.sha256());
        UUID id = UUID.randomUUID();
        jdbc.update("INSERT INTO import_job (id, supplier, state, key, file_name, size, source, total, quarantined,"
                + " lease_owner, lease_until) VALUES (?, 'ACME', 'PROCESSING', ?, 'l.csv', ?, 'test', 2, 1, ?,"
                + " now() + interval '10 minutes')", id, content.key().toString(), content.size(), instanceId.value());
        // on purpose: the workers poll (100 ms) several times, and must leave the leased job alone
        Thread.sleep(1000);
        assertThat(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, id)).isEqualTo("PROCESSING");

        assertThat(housekeeping.releaseOwn().jobLeases()).isEqualTo(1);
        await().atMost(Duration.ofSeconds(20)).until(() ->
                jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, id).equals("COMPLETED_WITH_ERRORS"));
        assertThat(jdbc.queryForObject("SELECT accepted FROM import_job WHERE id = ?", Long.class, id)).isEqualTo(1);
    }

    @Test
    void aFileClaimedByAnInstanceThatIsGoneIsReclaimedAndTheFileIngested() throws Exception {
        java.nio.file.Path target = INBOX.resolve("ACME").resolve("orphan.csv");
        jdbc.update("INSERT INTO file_claim (claim_key, owner, claimed_at) VALUES (?, 'gone', now() - interval '11 minutes')",
                target.toAbsolutePath().toString());
        assertThat(housekeeping.recover().fileClaims()).isEqualTo(1);
        drop("ACME", "orphan.csv", ("source_id,sku,quantity,delivery_date\nO-1,SKU,1,2026-12-01\n" + UUID.randomUUID())
                .getBytes(StandardCharsets.UTF_8));
        awaitJobs(1);
    }

    @Test
    void recoveryReleasesWhatLapsedLeasesHold() {
        jdbc.update("INSERT INTO file_claim (claim_key, owner, claimed_at) VALUES ('/gone/a.csv', 'dead', now() - interval '1 hour'),"
                + " ('/live/b.csv', 'alive', now())");
        jdbc.update("INSERT INTO http_request (supplier, idempotency_key, fingerprint, state, owner, lease_until, expires_at)"
                + " VALUES ('ACME', 'k-dead', repeat('a', 64), 'IN_PROGRESS', 'dead/1', now() - interval '1 minute', now() + interval '1 day'),"
                + " ('ACME', 'k-live', repeat('a', 64), 'IN_PROGRESS', 'alive/1', now() + interval '1 minute', now() + interval '1 day')");
        Housekeeping.RecoveryReport report = housekeeping.recover();
        assertThat(report.fileClaims()).isEqualTo(1);
        assertThat(report.httpRequests()).isEqualTo(1);
        assertThat(jdbc.queryForList("SELECT claim_key FROM file_claim", String.class)).containsExactly("/live/b.csv");
        assertThat(jdbc.queryForList("SELECT idempotency_key FROM http_request", String.class)).containsExactly("k-live");
    }

    @Test
    void bytesArrivingWhileRetentionFreesTheirKeyKeepTheirRawFile() throws Exception {
        String content = "source_id,sku,quantity,delivery_date\nR-" + UUID.randomUUID() + ",SKU,1,2026-12-01\n";
        StoredContent old = job("COMPLETED", "40 days", content);
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
        dev.ingestor.job.IntakeResult result = exchange.getMessage().getBody(dev.ingestor.job.IntakeResult.class);
        assertThat(result.duplicate()).isFalse();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM import_job WHERE file_name = 'f.csv'", Long.class)).isZero();
        assertThat(old.path()).hasContent(content);
        awaitSettled();
        assertThat(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, result.job().id()))
                .isEqualTo("COMPLETED");
        assertThat(old.path()).exists();
    }
}
