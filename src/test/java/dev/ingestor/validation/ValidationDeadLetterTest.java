package dev.ingestor.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.intake.IntakeResult;
import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * The validation stage's dead letter: a passing failure (a deadlock, here injected by a trigger on the real
 * PostgreSQL) that outlasts the redelivery policy ends as one dead letter of stage validation and a FAILED job;
 * replaying the dead letter sends the job back to validation, which reads the file again and finishes it.
 */
@Timeout(120)
class ValidationDeadLetterTest extends IngestorTestSupport {

    private static final String HEADER = "source_id,source_version,sku,quantity,delivery_date\n";

    @AfterEach
    void removeFault() {
        removeValidationFault("validation_fault");
    }

    /**
     * Every attempt to move a job on from validation (to any state but FAILED or REJECTED, which the stage's
     * failure paths write) fails as a deadlock does: transient, so the stage redelivers until its policy is spent.
     */
    private void failEveryValidation() {
        failEveryValidation("validation_fault", " into validation");
    }

    private UUID ingest(String content) {
        return producer.requestBodyAndHeaders("direct:intake", content.getBytes(StandardCharsets.UTF_8),
                Map.of(IntakeHeaders.SUPPLIER, "ACME", IntakeHeaders.FILE_NAME, "validation.csv", IntakeHeaders.SOURCE,
                        "test"),
                IntakeResult.class).job().id();
    }

    private Map<String, Object> awaitJob(UUID id, String state) {
        await().atMost(Duration.ofSeconds(30)).until(
                () -> state.equals(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, id)));
        return jdbc.queryForMap("SELECT * FROM import_job WHERE id = ?", id);
    }

    @org.springframework.beans.factory.annotation.Autowired
    private dev.ingestor.job.DeadLetters deadLetters;

    /**
     * The dead letter is written before the job is failed (the job's error names it): when the job turns out to be
     * another worker's, all of it is rolled back, so a worker that lost its lease leaves no letter, event or notice.
     */
    @Test
    void aFailureOfAJobAnotherWorkerHoldsLeavesNoDeadLetterEventOrNotice() {
        IntakeResult taken = producer.requestBodyAndHeaders("direct:intake",
                (HEADER + "D-1,1,SKU,1,2026-12-01\n").getBytes(StandardCharsets.UTF_8),
                Map.of(IntakeHeaders.SUPPLIER, "ACME", IntakeHeaders.FILE_NAME, "held.csv", IntakeHeaders.SOURCE,
                        "test"),
                IntakeResult.class);
        awaitSettled();
        jdbc.update("UPDATE import_job SET state = 'PROCESSING', lease_owner = 'another-instance',"
                + " lease_until = now() + interval '1 hour' WHERE id = ?", taken.job().id());

        deadLetters.record(org.apache.camel.builder.ExchangeBuilder.anExchange(camelContext).withBody(taken.job())
                .withProperty(org.apache.camel.Exchange.EXCEPTION_CAUGHT, new IllegalStateException("boom"))
                .withProperty(dev.ingestor.job.DeadLetters.STAGE, "processing").build());

        assertThat(jdbc.queryForObject("SELECT count(*) FROM dead_letter", Long.class)).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_all WHERE topic = 'ingestor.dead-letters'",
                Long.class))
                .isZero();
        assertThat(jdbc.queryForObject(
                "SELECT count(*) FROM notification WHERE type IN ('dead_letter.created', 'job.failed')",
                Long.class)).isZero();
        assertThat(jdbc.queryForMap("SELECT state, error FROM import_job WHERE id = ?", taken.job().id()))
                .containsEntry("state", "PROCESSING").containsEntry("error", null);
    }

    @Test
    void aTransientFailureThatOutlastsThePolicyIsAValidationDeadLetterAndItsReplayValidatesAgain() throws Exception {
        failEveryValidation();
        // one good record, one bad: only a validation that ran again can know the second is quarantined
        UUID id = ingest(HEADER + "V-1,1,SKU,1,2026-12-01\nV-2,1,SKU,0,2026-12-01\n");

        Map<String, Object> failed = awaitJob(id, "FAILED");
        assertThat((String) failed.get("error")).contains("validation failed")
                .contains("deadlock detected (injected into validation)");
        assertThat(failed.get("total")).as("validation never finished").isEqualTo(0L);
        List<Map<String, Object>> letters = jdbc.queryForList("SELECT * FROM dead_letter");
        assertThat(letters).singleElement().satisfies(letter -> assertThat(letter)
                .containsEntry("job_id", id).containsEntry("stage", "validation")
                // validation's own policy: ingestor.pipeline.validation.redelivery.maximum-redeliveries 2 in the
                // test properties (processing's is 3), so the first try and two redeliveries
                .containsEntry("attempts", 3));
        assertThat(letters.get(0).get("replayed_at")).isNull();
        // one event for ingestor.dead-letters, naming the stage, and no item effect at all
        List<String> events = jdbc.queryForList("SELECT payload FROM outbox_all WHERE topic = 'ingestor.dead-letters'",
                String.class);
        assertThat(events).singleElement().satisfies(event -> {
            JsonNode payload = JSON.readTree(event);
            assertThat(payload.get("job_id").asString()).isEqualTo(id.toString());
            assertThat(payload.get("stage").asString()).isEqualTo("validation");
        });
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item", Long.class)).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_all WHERE topic = 'ingestor.items'", Long.class))
                .isZero();

        removeFault();
        long letter = (Long) letters.get(0).get("id");
        HttpResponse<String> replay = http.send(
                HttpRequest.newBuilder(uri("/api/v1/admin/dead-letters/" + letter + "/replay"))
                        .header("X-Api-Key", ADMIN_KEY).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(replay.statusCode()).as(replay.body()).isEqualTo(202);

        Map<String, Object> finished = awaitJob(id, "COMPLETED_WITH_ERRORS");
        assertThat(finished).containsEntry("total", 2L).containsEntry("accepted", 1L).containsEntry("quarantined", 1L)
                .containsEntry("error", null);
        assertThat(jdbc.queryForList("SELECT reason FROM job_record WHERE job_id = ?", String.class, id))
                .singleElement().asString().contains("quantity");
        assertThat(jdbc.queryForObject("SELECT replayed_at IS NOT NULL FROM dead_letter WHERE id = ?", Boolean.class,
                letter)).isTrue();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM dead_letter", Long.class)).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item", Long.class)).isEqualTo(1);
    }
}
