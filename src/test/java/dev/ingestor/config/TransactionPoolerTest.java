package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.ingestor.support.CapturedLogs;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestKafka;
import dev.ingestor.support.TestPgBouncer;
import dev.ingestor.support.TestPostgres;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The whole app through a real PgBouncer in transaction mode (ingestor.database.transaction-pooler), with fewer
 * server connections than the app's pool, so consecutive transactions of one pooled connection run on different
 * server sessions: every lock of the app is transaction-scoped and no statement is prepared on a session, so the
 * same file pushed by several callers at once is one job, every job completes and every record is one event.
 * Without transaction-pooler the app does not even start behind it (startup options refused).
 */
@Timeout(240)
// a context of its own (another database, through PgBouncer), closed after the class: left running it would
// poll the shared inbox beside the other contexts
@DirtiesContext
// slow tier: a context of its own and a PgBouncer process
@SlowTest
class TransactionPoolerTest extends IngestorTestSupport {

    private static final String DATABASE = "ingestor_pgbouncer";
    private static TestPgBouncer bouncer;

    @DynamicPropertySource
    static void throughPgBouncer(DynamicPropertyRegistry registry) throws Exception {
        TestPgBouncer.assumeInstalled();
        bouncer = TestPgBouncer.start(DATABASE, 4);
        // the role carries the limits the connections cannot (RoleTimeoutsCheck reads them at start)
        try (Connection direct = DriverManager.getConnection(TestPostgres.jdbcUrl(DATABASE));
                Statement statement = direct.createStatement()) {
            statement.execute("ALTER ROLE postgres IN DATABASE " + DATABASE + " SET statement_timeout = '30s'");
        }
        // the pool's own URL, bound over spring.datasource.url (which IngestorTestSupport sets, and which a
        // subclass's registry does not replace)
        registry.add("spring.datasource.hikari.jdbc-url", () -> bouncer.jdbcUrl(DATABASE));
        registry.add("ingestor.database.transaction-pooler", () -> "true");
    }

    @AfterAll
    static void stopBouncer() {
        if (bouncer != null) {
            bouncer.close();
        }
    }

    @Test
    void theSameFilesPushedConcurrentlyThroughPgBouncerAreOneJobEachAndEveryRecordOneEvent() throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        List<byte[]> files = new ArrayList<>();
        Set<String> sourceIds = new HashSet<>();
        for (int f = 0; f < 12; f++) {
            StringBuilder csv = new StringBuilder("source_id,sku,quantity,delivery_date\n");
            for (int r = 0; r < 3; r++) {
                String sourceId = run + "-" + f + "-" + r;
                sourceIds.add(sourceId);
                csv.append(sourceId).append(",SKU-").append(r).append(",").append(r + 1).append(",2026-12-01\n");
            }
            files.add(csv.toString().getBytes(StandardCharsets.UTF_8));
        }
        ExecutorService callers = Executors.newFixedThreadPool(12);
        try {
            List<Future<HttpResponse<String>>> answers = new ArrayList<>();
            for (int copy = 0; copy < 3; copy++) {
                for (int f = 0; f < files.size(); f++) {
                    byte[] file = files.get(f);
                    String name = run + "-" + f + ".csv";
                    answers.add(callers.submit(() -> post("/api/v1/suppliers/ACME/files", ACME_KEY, "text/csv", file,
                            "X-File-Name", name)));
                }
            }
            for (Future<HttpResponse<String>> answer : answers) {
                HttpResponse<String> response = answer.get();
                assertThat(response.statusCode()).as(response.body()).isIn(200, 202);
            }
        } finally {
            callers.shutdownNow();
        }

        assertThat(jdbc.queryForObject("SELECT count(*) FROM import_job WHERE file_name LIKE ?", Long.class,
                run + "-%")).isEqualTo(files.size());
        await().atMost(Duration.ofSeconds(60)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM import_job WHERE file_name LIKE ? AND state = 'COMPLETED'", Long.class,
                run + "-%") == files.size());

        Map<String, Set<String>> eventIds = new HashMap<>();
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            for (ConsumerRecord<String, String> record : TestKafka.readAll("ingestor.items", Duration.ofSeconds(1))) {
                if (record.key() != null && record.key().startsWith("ACME:" + run + "-")) {
                    eventIds.computeIfAbsent(record.key().substring("ACME:".length()), k -> new HashSet<>())
                            .add(JSON.readTree(record.value()).get("event_id").asString());
                }
            }
            assertThat(eventIds.keySet()).isEqualTo(sourceIds);
        });
        assertThat(eventIds).allSatisfy((sourceId, ids) -> assertThat(ids).as(sourceId).hasSize(1));
    }

    @Test
    void theConnectionsCarryTheRoleLimitsAndPrepareNothingOnTheServer() {
        assertThat(jdbc.queryForObject("SHOW statement_timeout", String.class)).isEqualTo("30s");
        for (int i = 0; i < 10; i++) { // past pgjdbc's default prepareThreshold of 5
            assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_prepared_statements", Long.class)).isZero();
        }
    }

    @Test
    void roleTimeoutsCheckNamesTheStatementWhenTheRoleLacksALimit() {
        DatabaseSettings settings = new DatabaseSettings();
        settings.setTransactionPooler(true);
        settings.setLockTimeout(Duration.ofSeconds(5));
        try (CapturedLogs logs = CapturedLogs.of("dev.ingestor.database")) {
            new RoleTimeoutsCheck(jdbc, new DatabaseTimeouts(settings)).check();

            assertThat(logs.messages()).hasSize(1).first().asString().contains("lock_timeout is 0 ms")
                    .contains("ingestor.database.lock-timeout").contains("ALTER ROLE CURRENT_USER SET lock_timeout");
        }
    }
}
