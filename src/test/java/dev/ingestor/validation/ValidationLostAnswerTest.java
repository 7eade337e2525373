package dev.ingestor.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.UUID;

import dev.ingestor.job.ImportJob;
import dev.ingestor.job.ImportJobStore;
import dev.ingestor.job.JobClaims;
import dev.ingestor.job.LeaseLostException;
import dev.ingestor.support.IngestorTestSupport;
import org.apache.camel.CamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A validation redelivered after its earlier attempt committed while the answer was lost (the connection broke after
 * PostgreSQL committed) hands its job on to processing instead of clearing its quarantine and waiting out its lease;
 * one whose job another worker holds since lets go before it clears anything. On the real PostgreSQL, the stage's
 * bean called as its route calls it; this instance's own workers are kept off the job by a constraint.
 */
class ValidationLostAnswerTest extends IngestorTestSupport {

    private static final String INSTANCE = "lost-validation-answer";

    @Autowired
    JobClaims claims;
    @Autowired
    JobValidation validation;
    @Autowired
    ImportJobStore jobs;
    @Autowired
    CamelContext camelContext;
    @Autowired
    QuarantineWriter quarantine;

    @BeforeEach
    void holdBackThisInstancesWorkers() {
        holdBackWorkersOf(claims.owner());
    }

    @AfterEach
    void letThemGo() {
        stopHoldingBackWorkers();
    }

    @Test
    void aValidationRedeliveredAfterItsJobWentOnHandsItOnAndKeepsItsQuarantine() throws Exception {
        String lease = INSTANCE + "/" + UUID.randomUUID();
        // as validatedAndHeld leaves it: processing, held by the validating worker, with its quarantine
        UUID id = jobHeld("lost-hand-on.csv", "PROCESSING", lease);
        try {
            jdbc.update("UPDATE import_job SET total = 1, quarantined = 1 WHERE id = ?", id);
            jdbc.update("INSERT INTO job_record (job_id, record_no, line, outcome, reason)"
                    + " VALUES (?, 1, 2, 'QUARANTINED', 'kept')", id);
            ImportJob held = jobs.find(id).orElseThrow();

            validation.validate(held, new DefaultExchange(camelContext));

            assertThat(row(id)).containsEntry("state", "PROCESSING").containsEntry("lease_owner", null)
                    .containsEntry("takeovers", 0);
            assertThat(quarantined(id)).isEqualTo(1);

            // held by another worker since: let go of, its quarantine untouched
            jdbc.update("UPDATE import_job SET state = 'VALIDATING', lease_owner = ? WHERE id = ?", lease, id);
            ImportJob stale = jobs.find(id).orElseThrow();
            jdbc.update("UPDATE import_job SET lease_owner = 'another/claim' WHERE id = ?", id);
            assertThatThrownBy(() -> validation.validate(stale, new DefaultExchange(camelContext)))
                    .isInstanceOf(LeaseLostException.class);
            assertThat(quarantined(id)).isEqualTo(1);
        } finally {
            jdbc.update("DELETE FROM import_job WHERE id = ?", id);
        }
    }

    /**
     * Validation's quarantine is written only while its lease holds the job: a worker still running after its job was
     * handed back (past the shutdown timeout) writes nothing the next owner's run would collide with.
     */
    @Test
    void quarantinedRowsAreWrittenOnlyWhileTheLeaseHoldsTheJob() {
        String lease = INSTANCE + "/" + UUID.randomUUID();
        UUID id = jobHeld("lease-held.csv", "VALIDATING", lease);
        try {
            Validated bad = DeliveryAdviceValidator.validate(new RawRecord(1, 2, Map.of("source_id", "x"), null));
            java.util.List<Object[]> rows = new java.util.ArrayList<>();
            rows.add(QuarantineWriter.row(id, bad));
            assertThat(quarantine.insertWhileHeld(rows, id, lease)).isTrue();
            assertThat(rows).isEmpty();
            assertThat(quarantined(id)).isEqualTo(1);

            // handed back at a shutdown, or taken over: the late worker's rows are not written
            jdbc.update("UPDATE import_job SET state = 'RECEIVED', lease_owner = NULL, lease_until = NULL WHERE id = ?",
                    id);
            rows.add(QuarantineWriter.row(id,
                    DeliveryAdviceValidator.validate(new RawRecord(2, 3, Map.of("source_id", "y"), null))));
            assertThat(quarantine.insertWhileHeld(rows, id, lease)).isFalse();
            assertThat(quarantined(id)).isEqualTo(1);
        } finally {
            jdbc.update("DELETE FROM import_job WHERE id = ?", id);
        }
    }

    /** A job of a file of its own, in {@code state} and held by {@code lease}, as a worker left it. */
    private UUID jobHeld(String fileName, String state, String lease) {
        UUID id = intake("ACME", fileName, "source_id,sku,quantity,delivery_date\nL-" + UUID.randomUUID()
                + ",S,1,2026-12-01\n");
        jdbc.update("UPDATE import_job SET state = ?, lease_owner = ?, lease_until = now() + interval '10 minutes'"
                + " WHERE id = ?", state, lease, id);
        return id;
    }

    private Map<String, Object> row(UUID id) {
        return jdbc.queryForMap("SELECT state, lease_owner, takeovers, attempts FROM import_job WHERE id = ?", id);
    }

    private long quarantined(UUID id) {
        return jdbc.queryForObject("SELECT count(*) FROM job_record WHERE job_id = ?", Long.class, id);
    }
}
