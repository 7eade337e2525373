package dev.ingestor.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.ingestor.job.ImportJob;
import dev.ingestor.job.ImportJobStore;
import dev.ingestor.job.JobClaims;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.TestPostgres;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A validation worker paused (a long GC pause, SIGSTOP, a frozen VM) right after it found that it still holds its job
 * and before it clears the job's quarantine for its clean slate, for longer than the lease: meanwhile another worker
 * took the job over and validated it, quarantine included. The paused worker, resumed, must not clear what the new
 * owner wrote; its clean slate is guarded by its lease in the statement that clears. The pause is a lock the test
 * holds on job_record, which the clear waits for before it reads anything; the other worker's takeover and
 * validation are committed in the transaction that holds it, as that worker would commit them.
 */
class ValidationPausedPastItsLeaseTest extends IngestorTestSupport {

    @Autowired
    JobClaims claims;
    @Autowired
    JobValidation validation;
    @Autowired
    ImportJobStore jobs;

    @BeforeEach
    void holdBackThisInstancesWorkers() {
        holdBackWorkersOf(claims.owner());
    }

    @AfterEach
    void letThemGo() {
        stopHoldingBackWorkers();
    }

    @Test
    void aResumedValidationKeepsTheQuarantineOfTheWorkerThatTookItsJobOver() throws Exception {
        String paused = "paused-instance/" + UUID.randomUUID();
        String successor = "other-instance/" + UUID.randomUUID();
        UUID id = intake("ACME", "paused.csv",
                "source_id,sku,quantity,delivery_date\nP-" + UUID.randomUUID() + ",S,not-a-number,2026-12-01\n");
        jdbc.update("UPDATE import_job SET state = 'VALIDATING', lease_owner = ?,"
                + " lease_until = now() + interval '10 minutes' WHERE id = ?", paused, id);
        ImportJob held = jobs.find(id).orElseThrow();
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try (Connection other = DriverManager.getConnection(TestPostgres.jdbcUrl("ingestor"))) {
            other.setAutoCommit(false);
            int otherPid = firstInt(other, "SELECT pg_backend_pid()");
            // the pause: the paused worker's clean slate waits here until the other worker has committed
            update(other, "LOCK TABLE job_record IN SHARE MODE");
            Future<?> resumed = thread.submit(() -> validation.validate(held, new DefaultExchange(camelContext)));
            await().atMost(Duration.ofSeconds(30)).until(() -> blockedBy(otherPid) != null);

            // meanwhile its lease lapsed: another worker took the job over, quarantined its bad record and handed the
            // job on to processing
            update(other, "UPDATE import_job SET lease_owner = ?, takeovers = takeovers + 1 WHERE id = ?", successor,
                    id);
            update(other, "INSERT INTO job_record (job_id, record_no, line, outcome, reason)"
                    + " VALUES (?, 1, 2, 'QUARANTINED', 'quantity is not a number')", id);
            update(other, "UPDATE import_job SET state = 'PROCESSING', total = 1, quarantined = 1, lease_owner = NULL,"
                    + " lease_until = NULL WHERE id = ?", id);
            other.commit();

            try {
                resumed.get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException lost) {
                // the resumed worker lets go of a job it no longer holds
            }
        } finally {
            thread.shutdownNow();
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM job_record WHERE job_id = ?", Long.class, id))
                .as("the quarantine the job's owner wrote").isEqualTo(1);
        assertThat(jdbc.queryForMap("SELECT state, lease_owner FROM import_job WHERE id = ?", id))
                .containsEntry("state", "PROCESSING").containsEntry("lease_owner", null);
    }

    private static int firstInt(Connection connection, String sql) throws Exception {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private static void update(Connection connection, String sql, Object... args) throws Exception {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                statement.setObject(i + 1, args[i]);
            }
            statement.executeUpdate();
        }
    }
}
