package dev.ingestor.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * PostgreSQL made to hang: another database connection holds the job table locked while callers list jobs and
 * push files at once. Every request is answered 503 + Retry-After once ingestor.database.statement-timeout has
 * passed, none holds its thread and connection for as long as the lock lasts, and once the lock is gone the same
 * requests are served.
 */
@Timeout(180)
// a context of its own (short time limits), closed after the class: left running it would poll the shared inbox
// beside the other contexts and take their files
@org.springframework.test.annotation.DirtiesContext
// slow tier: a context of its own, waiting on a locked table
@SlowTest
class DatabaseHangTest extends IngestorTestSupport {

    /** The database of every context of IngestorTestSupport; their workers wait on the lock too, for its seconds. */
    private static final String DATABASE = "ingestor";
    private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(1);
    /** What a loaded two-core machine may add to the timeout before the answer arrives. */
    private static final Duration LEEWAY = Duration.ofSeconds(10);

    @DynamicPropertySource
    static void hangProperties(DynamicPropertyRegistry registry) {
        registry.add("ingestor.database.statement-timeout", () -> STATEMENT_TIMEOUT.toMillis() + "ms");
        // far beyond the wait below: the statement timeout is what answers here (the socket timeout has its own test)
        registry.add("ingestor.database.socket-timeout", () -> "60s");
    }

    @Test
    void requestsWhileTheJobTableIsLockedAre503WithinTheStatementTimeoutAndServedAfter() throws Exception {
        List<byte[]> files = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            files.add(("source_id,sku,quantity,delivery_date\nH-" + UUID.randomUUID() + ",SKU,1,2026-12-01\n")
                    .getBytes(StandardCharsets.UTF_8));
        }
        try (Connection holder = DriverManager.getConnection(TestPostgres.jdbcUrl(DATABASE));
                Statement lock = holder.createStatement()) {
            holder.setAutoCommit(false);
            lock.execute("LOCK TABLE import_job IN ACCESS EXCLUSIVE MODE");
            try {
                List<CompletableFuture<Answer>> answers = new ArrayList<>();
                for (byte[] file : files) {
                    answers.add(timed(() -> http.sendAsync(
                            postRequest("/api/v1/suppliers/ACME/files", ACME_KEY, "text/csv",
                                    java.net.http.HttpRequest.BodyPublishers.ofByteArray(file), "X-File-Name",
                                    "hang.csv"),
                            HttpResponse.BodyHandlers.ofString())));
                    answers.add(timed(() -> http.sendAsync(java.net.http.HttpRequest.newBuilder(uri("/api/v1/jobs"))
                            .header("Authorization", "Bearer " + ADMIN_KEY).GET().build(),
                            HttpResponse.BodyHandlers.ofString())));
                }
                for (CompletableFuture<Answer> pending : answers) {
                    // a request that waits for the lock for as long as it is held fails here instead of hanging
                    Answer answer = pending.get(STATEMENT_TIMEOUT.plus(LEEWAY).toMillis(), TimeUnit.MILLISECONDS);
                    assertProblem(answer.response(), 503, "retry");
                    assertThat(answer.response().headers().firstValue("Retry-After")).hasValueSatisfying(
                            seconds -> assertThat(Integer.parseInt(seconds)).isPositive());
                    assertThat(answer.took()).as("answered once the statement timeout cancelled the wait")
                            .isGreaterThanOrEqualTo(STATEMENT_TIMEOUT.minusMillis(100))
                            .isLessThan(STATEMENT_TIMEOUT.plus(LEEWAY));
                }
                assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
                        + " WHERE c.relname = 'import_job' AND l.mode = 'AccessExclusiveLock' AND l.granted",
                        Long.class))
                        .as("the lock was held throughout").isEqualTo(1);
            } finally {
                holder.rollback();
            }
        }

        assertThat(get("/api/v1/jobs").statusCode()).isEqualTo(200);
        for (byte[] file : files) {
            HttpResponse<String> retry = post("/api/v1/suppliers/ACME/files", ACME_KEY, "text/csv", file, "X-File-Name",
                    "hang.csv");
            assertThat(retry.statusCode()).as(retry.body()).isEqualTo(202);
        }
        assertThat(jobCount()).as("each retried file one job, nothing kept of the refused pushes")
                .isEqualTo(files.size());
    }

    private record Answer(HttpResponse<String> response, Duration took) {
    }

    private static CompletableFuture<Answer> timed(
            java.util.function.Supplier<CompletableFuture<HttpResponse<String>>> request) {
        long start = System.nanoTime();
        return request.get().thenApply(response -> new Answer(response, Duration.ofNanos(System.nanoTime() - start)));
    }
}
