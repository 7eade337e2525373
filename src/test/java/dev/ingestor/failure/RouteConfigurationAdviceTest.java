package dev.ingestor.failure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

import dev.ingestor.intake.RejectedDropException;
import dev.ingestor.job.ImportJob;
import dev.ingestor.support.IngestorTestSupport;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.builder.AdviceWith;
import org.apache.camel.model.BeanDefinition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The named route configurations of routes/error-handling.camel.yaml at work in the real routes, with a failing step
 * woven in by Camel's AdviceWith: stage-errors with validation-redelivery (a transient failure redelivered by the
 * stage's policy, then the dead-letter channel; a final one straight to the dead letter), file-source-errors (a
 * transient failure redelivered by the intake policy, then .failed/; a rejection at once to .rejected/) and
 * api-errors (problem+json: 503 + Retry-After for a transient failure, 500 naming the exchange otherwise).
 * <p>
 * The routes are the shared context's own: each test weaves its step in and takes it out again afterwards, which
 * leaves the route's steps as they were for the test classes after it. The woven step fails only for what the test
 * sends (its file names, its request header), so the rest of the route works as always meanwhile.
 */
@Timeout(120)
class RouteConfigurationAdviceTest extends IngestorTestSupport {

    private static final String FAULT_ID = "advised-fault";
    private static final String HEADER = "source_id,sku,quantity,delivery_date\n";

    /** The route the current test wove its step into, taken out again after the test. */
    private String advised;

    /** The CamelRedeliveryCounter of each time the woven step ran for what the test sent: 0 first, then 1, 2, ... */
    private final List<Integer> attempts = new CopyOnWriteArrayList<>();

    @AfterEach
    void takeTheFaultOut() throws Exception {
        if (advised != null) {
            AdviceWith.adviceWith(camelContext, advised, route -> route.weaveById(FAULT_ID).remove());
            assertThat(camelContext.getProcessor(FAULT_ID)).as("the woven step, after it was taken out").isNull();
            assertThat(camelContext.getRouteController().getRouteStatus(advised).isStarted()).isTrue();
        }
    }

    /** Runs {@code failure} for the exchanges {@code ours} selects, counting each run with its redelivery counter. */
    private Processor fault(Predicate<Exchange> ours, FailureOf failure) {
        return exchange -> {
            if (!ours.test(exchange)) {
                return;
            }
            int redelivery = exchange.getIn().getHeader(Exchange.REDELIVERY_COUNTER, 0, Integer.class);
            attempts.add(redelivery);
            Exception thrown = failure.at(redelivery);
            if (thrown != null) {
                throw thrown;
            }
        };
    }

    /** The exception the woven step throws at this redelivery count, or null to let the exchange pass. */
    @FunctionalInterface
    private interface FailureOf {
        Exception at(int redelivery);
    }

    /** Weaves the failing step into validate-job, just before jobValidation.validate, for files named advice-*. */
    private void failValidation(FailureOf failure) throws Exception {
        advised = "validate-job";
        Predicate<Exchange> ours = e -> e.getIn().getBody() instanceof ImportJob job
                && job.fileName().startsWith("advice-");
        AdviceWith.adviceWith(camelContext, advised, route -> route.weaveByType(BeanDefinition.class).selectFirst()
                .before().process(fault(ours, failure)).id(FAULT_ID));
    }

    private Map<String, Object> awaitJob(UUID id, String state) {
        await().atMost(Duration.ofSeconds(30)).until(
                () -> state.equals(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, id)));
        return jdbc.queryForMap("SELECT * FROM import_job WHERE id = ?", id);
    }

    private static String advice(String id) {
        return HEADER + id + "-" + UUID.randomUUID() + ",SKU,1,2026-12-01\n";
    }

    @Test
    void aTransientValidationFailureIsRedeliveredByTheStagesPolicyThenDeadLettered() throws Exception {
        failValidation(redelivery -> new SQLTransientConnectionException("connection lost (advised)", "08006"));

        UUID id = intake("ACME", "advice-transient.csv", advice("T"));

        Map<String, Object> job = awaitJob(id, "FAILED");
        // validation-redelivery: the first try and ingestor.pipeline.validation.redelivery.maximum-redeliveries (2
        // here)
        assertThat(attempts).containsExactly(0, 1, 2);
        assertThat((String) job.get("error")).startsWith("validation failed (dead letter ")
                .contains("connection lost (advised)");
        assertThat(jdbc.queryForMap("SELECT stage, exception, message FROM dead_letter WHERE job_id = ?", id))
                .containsEntry("stage", "validation")
                .containsEntry("exception", SQLTransientConnectionException.class.getName())
                .containsEntry("message", "connection lost (advised)");
    }

    @Test
    void aFinalValidationFailureGoesToTheDeadLetterWithoutRedelivery() throws Exception {
        failValidation(redelivery -> new IllegalStateException("a bug (advised)"));

        UUID id = intake("ACME", "advice-final.csv", advice("F"));

        awaitJob(id, "FAILED");
        assertThat(jdbc.queryForMap("SELECT stage, exception FROM dead_letter WHERE job_id = ?", id))
                .containsEntry("stage", "validation").containsEntry("exception", IllegalStateException.class.getName());
        // not transient (transientFailures): stage-errors' dead-letter channel redelivers nothing
        assertThat(attempts).containsExactly(0);
    }

    @Test
    void aTransientValidationFailureThatPassesOnRedeliveryCompletesTheJobWithoutADeadLetter() throws Exception {
        failValidation(redelivery -> redelivery == 0
                ? new SQLTransientConnectionException("connection lost once (advised)", "08006")
                : null);

        UUID id = intake("ACME", "advice-passing.csv", advice("P"));

        Map<String, Object> job = awaitJob(id, "COMPLETED");
        assertThat(job).containsEntry("accepted", 1L);
        assertThat(attempts).containsExactly(0, 1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM dead_letter WHERE job_id = ?", Long.class, id)).isZero();
    }

    /** Weaves the failing step into file-drop-ACME, just before it hands the file to direct:intake. */
    private void failFileDrop(FailureOf failure) throws Exception {
        advised = "file-drop-ACME";
        Predicate<Exchange> ours = e -> String.valueOf(e.getIn().getHeader(Exchange.FILE_NAME_ONLY))
                .startsWith("advice-");
        AdviceWith.adviceWith(camelContext, advised, route -> route.weaveByToUri("direct:intake")
                .before().process(fault(ours, failure)).id(FAULT_ID));
    }

    @Test
    void aTransientFileDropFailureIsRedeliveredByTheIntakePolicyThenTheFileFails() throws Exception {
        failFileDrop(redelivery -> new IOException("disk full (advised)"));

        drop("ACME", "advice-failing.csv", advice("D").getBytes(StandardCharsets.UTF_8));

        awaitFiles(INBOX.resolve("ACME/.failed"), 1);
        // file-source-errors: the first try and ingestor.intake.redelivery.maximum-redeliveries (3 here)
        assertThat(attempts).containsExactly(0, 1, 2, 3);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> jdbc.queryForObject("SELECT count(*) FROM intake_failure", Long.class) == 1);
        assertThat(jdbc.queryForMap("SELECT file_name, outcome, reason FROM intake_failure"))
                .containsEntry("file_name", "advice-failing.csv").containsEntry("outcome", "failed")
                .hasEntrySatisfying("reason", reason -> assertThat((String) reason).contains("disk full (advised)"));
        assertThat(jobCount()).isZero();
    }

    @Test
    void aRejectedDropIsNotRedeliveredAndTheFileIsRejected() throws Exception {
        failFileDrop(redelivery -> new RejectedDropException("refused by the test (advised)"));

        drop("ACME", "advice-rejected.csv", advice("R").getBytes(StandardCharsets.UTF_8));

        awaitFiles(INBOX.resolve("ACME/.rejected"), 1);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> jdbc.queryForObject("SELECT count(*) FROM intake_failure", Long.class) == 1);
        assertThat(jdbc.queryForMap("SELECT file_name, outcome, reason FROM intake_failure"))
                .containsEntry("file_name", "advice-rejected.csv").containsEntry("outcome", "rejected")
                .containsEntry("reason", "refused by the test (advised)");
        assertThat(attempts).containsExactly(0);
        assertThat(filesIn(INBOX.resolve("ACME/.failed"))).isEmpty();
        assertThat(jobCount()).isZero();
    }

    /** Weaves the failing step into job-list (GET /api/v1/jobs), for requests carrying X-Advised-Fault. */
    private void failJobList(FailureOf failure) throws Exception {
        advised = "job-list";
        Predicate<Exchange> ours = e -> e.getIn().getHeader("X-Advised-Fault") != null;
        AdviceWith.adviceWith(camelContext, advised,
                route -> route.weaveAddFirst().process(fault(ours, failure)).id(FAULT_ID));
    }

    private HttpResponse<String> listJobs(boolean withFault) throws Exception {
        var request = java.net.http.HttpRequest.newBuilder(uri("/api/v1/jobs")).GET().header("X-Api-Key", ACME_KEY);
        if (withFault) {
            request.header("X-Advised-Fault", "yes");
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aTransientFailureOfAnApiRouteIsAnswered503ProblemWithRetryAfter() throws Exception {
        failJobList(redelivery -> new SQLTransientConnectionException("connection lost (advised)", "08006"));

        HttpResponse<String> answer = listJobs(true);

        assertProblem(answer, 503, "retry the same request after");
        assertThat(answer.headers().firstValue("Retry-After")).isPresent();
        assertThat(answer.body()).doesNotContain("connection lost (advised)");
        // api-errors answers at once: the caller retries, the route does not
        assertThat(attempts).containsExactly(0);
        assertThat(listJobs(false).statusCode()).as("a request without the fault").isEqualTo(200);
    }

    @Test
    void anUnexpectedFailureOfAnApiRouteIsAnswered500ProblemNamingTheExchangeOnly() throws Exception {
        failJobList(redelivery -> new IllegalStateException("a bug with a secret (advised)"));

        HttpResponse<String> answer = listJobs(true);

        assertProblem(answer, 500, "the error is logged with exchange ");
        assertThat(answer.body()).doesNotContain("a bug with a secret").doesNotContain("IllegalStateException");
        assertThat(attempts).containsExactly(0);
    }
}
