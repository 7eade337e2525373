package dev.ingestor.source.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;

/**
 * A file push the database cannot take (unreachable, or its commit fails) is answered 503 with Retry-After,
 * never 500 and never a job: the partner's retry after recovery makes exactly one job.
 */
@Timeout(120)
class FilePushUnavailableTest extends IngestorTestSupport {

    private static final String FILES = "/api/v1/suppliers/ACME/files";

    /** A connection to another database of the same server, which stays usable while the app's is refused. */
    private final JdbcTemplate admin = new JdbcTemplate(TestPostgres.server().getPostgresDatabase());

    @Autowired
    javax.sql.DataSource dataSource;

    @AfterEach
    void recover() {
        admin.execute("ALTER DATABASE ingestor ALLOW_CONNECTIONS true");
        // the pool may still hold connections the server terminated: drop them rather than fail on each once
        ((HikariDataSource) dataSource).getHikariPoolMXBean().softEvictConnections();
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
            jdbc.execute("DROP TRIGGER IF EXISTS fail_commit ON import_job");
            jdbc.execute("DROP FUNCTION IF EXISTS fail_commit()");
            return true;
        });
    }

    private static byte[] advice() {
        return ("source_id,sku,quantity,delivery_date\nU-" + UUID.randomUUID() + ",SKU,1,2026-12-01\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    private HttpResponse<String> push(byte[] content) throws Exception {
        return post(FILES, ACME_KEY, "text/csv", content, "X-File-Name", "unavailable.csv");
    }

    private void assertRetryLater(HttpResponse<String> answer) throws Exception {
        assertProblem(answer, 503, "retry");
        assertThat(answer.headers().firstValue("Retry-After")).hasValueSatisfying(
                seconds -> assertThat(Integer.parseInt(seconds)).isPositive());
    }

    /** The retry after recovery: a new job (202, not 200 for content seen before), and the only one. */
    private void assertRetryMakesOneJob(byte[] content) throws Exception {
        HttpResponse<String> retry = push(content);
        assertThat(retry.statusCode()).as(retry.body()).isEqualTo(202);
        JsonNode job = JSON.readTree(retry.body());
        assertThat(push(content).statusCode()).as("the same bytes again are the same job").isEqualTo(200);
        assertThat(jdbc.queryForList("SELECT id::text FROM import_job", String.class))
                .containsExactly(job.get("id").asString());
        assertThat(keyCount()).isEqualTo(1);
    }

    @Test
    void aPushWhileTheDatabaseRefusesConnectionsIs503AndItsRetryAfterRecoveryMakesOneJob() throws Exception {
        byte[] content = advice();
        // the server stops taking connections to the app's database and ends the ones it has, as a restart does
        admin.execute("ALTER DATABASE ingestor ALLOW_CONNECTIONS false");
        admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'ingestor' AND pid <> pg_backend_pid()");

        assertRetryLater(push(content));

        recover();
        assertThat(jobCount()).as("nothing of the refused push was kept").isZero();
        assertRetryMakesOneJob(content);
    }

    @Test
    void aPushWhoseCommitFailsIs503AndItsRetryMakesOneJob() throws Exception {
        // PostgreSQL refuses the intake transaction at COMMIT (a deferred check, failing as a serialization
        // failure does): every statement before it succeeded, and nothing of it is kept
        jdbc.execute("""
                CREATE FUNCTION fail_commit() RETURNS trigger AS $$
                BEGIN RAISE EXCEPTION 'could not serialize access (injected at commit)' USING ERRCODE = '40001'; END
                $$ LANGUAGE plpgsql""");
        jdbc.execute("CREATE CONSTRAINT TRIGGER fail_commit AFTER INSERT ON import_job DEFERRABLE INITIALLY DEFERRED"
                + " FOR EACH ROW EXECUTE FUNCTION fail_commit()");
        byte[] content = advice();

        assertRetryLater(push(content));
        assertThat(jobCount()).isZero();
        assertThat(keyCount()).as("the content key was rolled back with the job").isZero();

        recover();
        assertRetryMakesOneJob(content);
    }
}
