package dev.ingestor.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.InstanceId;
import dev.ingestor.metrics.IngestorMetrics;
import dev.ingestor.notification.NotificationWriter;
import dev.ingestor.outbox.DeadLetterWriter;
import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * A claim that committed while its answer was lost (the connection broke after PostgreSQL committed): its jobs are
 * handed back at the next claim instead of waiting out a lease no worker knows it holds, then counting a takeover.
 * On the real PostgreSQL; the answer is lost by a lifecycle whose claim commits and then throws. This instance's own
 * workers are kept off the jobs by a constraint.
 */
class LostClaimAnswerTest extends IngestorTestSupport {

    private static final String INSTANCE = "lost-claim-answers";

    @Autowired
    JobClaims claims;
    @Autowired
    PipelineSettings pipeline;
    @Autowired
    PlatformTransactionManager transactionManager;
    @Autowired
    NotificationWriter notifications;
    @Autowired
    ApplicationEventPublisher events;
    @Autowired
    DeadLetterWriter deadLetters;
    @Autowired
    IngestorMetrics metrics;

    @BeforeEach
    void holdBackThisInstancesWorkers() {
        // no job of another test waits before this one's
        truncateAll();
        holdBackWorkersOf(claims.owner());
    }

    @AfterEach
    void letThemGo() {
        stopHoldingBackWorkers();
    }

    @Test
    void aClaimWhoseAnswerWasLostHasItsJobHandedBackAtTheNextClaim() {
        UUID id = intake("ACME", "lost-claim.csv", "source_id,sku,quantity,delivery_date\nLC-" + UUID.randomUUID()
                + ",S,1,2026-12-01\n");
        AtomicBoolean loseNext = new AtomicBoolean(true);
        JobLifecycle losing = new JobLifecycle(jdbc, pipeline, transactionManager, notifications, events) {
            @Override
            public Optional<Claimed> claimOne(JobState waiting, JobState working, String owner) {
                Optional<Claimed> claimed = super.claimOne(waiting, working, owner);
                if (loseNext.getAndSet(false)) {
                    // as pgjdbc reports a connection broken while it waited for the answer
                    throw new DataAccessResourceFailureException("claim", new PSQLException(
                            "An I/O error occurred while sending to the backend.", PSQLState.CONNECTION_FAILURE));
                }
                return claimed;
            }
        };
        IngestorProperties properties = new IngestorProperties();
        properties.setInstanceId(INSTANCE);
        JobClaims worker = new JobClaims(jdbc, losing, new InstanceId(properties), pipeline, deadLetters,
                transactionManager, metrics);
        try {
            assertThatThrownBy(worker::claimForValidation).isInstanceOf(DataAccessResourceFailureException.class);
            assertThat(row(id)).containsEntry("state", "VALIDATING");

            ImportJob again = worker.claimForValidation();
            assertThat(again).isNotNull();
            assertThat(again.id()).isEqualTo(id);
            assertThat(row(id)).containsEntry("state", "VALIDATING").containsEntry("takeovers", 0)
                    .containsEntry("attempts", 2);
        } finally {
            jdbc.update("DELETE FROM import_job WHERE id = ?", id);
        }
    }

    private Map<String, Object> row(UUID id) {
        return jdbc.queryForMap("SELECT state, lease_owner, takeovers, attempts FROM import_job WHERE id = ?", id);
    }

}
