package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.ingestor.IngestorApplication;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestKafka;
import dev.ingestor.support.TestPostgres;
import dev.ingestor.support.TestSftpServer;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One poller per supplier across instances: two application instances (two Spring and Camel contexts) on one
 * database, configured with the same SFTP supplier, each logging in with a login of its own so that the server
 * (Apache MINA SSHD in this JVM) tells them apart. Only the lease holder logs in and lists the folder; when the
 * holder loses its database it stops polling before the other may take over, and the other takes over once the
 * lease ran out; a clean stop hands over at once. Every file is one job throughout.
 */
// slow tier: three application instances of its own, and leases waited out
@SlowTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SftpLeaderTest {

    private static final String DATABASE = "sftp_leader";
    private static final String ROUTE = "sftp-ACME";
    private static final Duration LEASE = Duration.ofSeconds(6);
    private static final Duration RENEWAL = Duration.ofSeconds(1);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final TestSftpServer SFTP = new TestSftpServer("one", "pw-one");
    private static final Path OUTBOX = SFTP.root().resolve("outbox");
    private static Path work;
    private static ConfigurableApplicationContext one;
    private static ConfigurableApplicationContext two;
    private static ConfigurableApplicationContext three;
    private static JdbcTemplate jdbc;

    @BeforeAll
    // two application contexts start here; on a busy machine that alone can take minutes
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    static void startTwoInstances() throws IOException {
        SFTP.addUser("two", "pw-two");
        SFTP.addUser("three", "pw-three");
        Files.createDirectories(OUTBOX);
        work = Files.createTempDirectory("ingestor-sftp-leader-");
        one = start("one");
        two = start("two");
        // the test's own connections: an instance's pool is closed on purpose below
        jdbc = new JdbcTemplate(new DriverManagerDataSource(TestPostgres.jdbcUrl(DATABASE)));
    }

    @AfterAll
    static void stop() {
        for (ConfigurableApplicationContext instance : new ConfigurableApplicationContext[] {one, two, three}) {
            if (instance != null && instance.isActive()) {
                instance.close();
            }
        }
        SFTP.stop();
    }

    private static ConfigurableApplicationContext start(String name) {
        // command-line arguments: they outrank application.yaml, as on a real host
        return new SpringApplicationBuilder(IngestorApplication.class).run(
                "--server.port=0",
                "--spring.datasource.url=" + TestPostgres.jdbcUrl(DATABASE),
                "--spring.datasource.hikari.connection-timeout=2000",
                "--ingestor.instance-id=" + name,
                "--ingestor.inbox-dir=" + work.resolve("inbox-" + name),
                "--ingestor.data-dir=" + work.resolve("data-" + name),
                "--ingestor.raw-dir=" + work.resolve("shared-raw"),
                "--ingestor.intake.fsync=false",
                "--ingestor.pipeline.enabled=false",
                "--ingestor.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
                "--ingestor.sftp.leader-lease=" + LEASE.toMillis() + "ms",
                "--ingestor.sftp.leader-renewal=" + RENEWAL.toMillis() + "ms",
                "--ingestor.suppliers.ACME.file-drop.enabled=false",
                "--ingestor.suppliers.GLOBEX.file-drop.enabled=false",
                "--ingestor.suppliers.ACME.sftp.host=127.0.0.1",
                "--ingestor.suppliers.ACME.sftp.port=" + SFTP.port(),
                // each instance its own login to the same folder, so the server's log tells who polled
                "--ingestor.suppliers.ACME.sftp.username=" + name,
                "--ingestor.suppliers.ACME.sftp.password=pw-" + name,
                "--ingestor.suppliers.ACME.sftp.strict-host-key-checking=false",
                "--ingestor.suppliers.ACME.sftp.directory=outbox",
                "--ingestor.suppliers.ACME.sftp.poll-interval=" + POLL.toMillis() + "ms",
                "--ingestor.suppliers.ACME.sftp.min-age=1s");
    }

    /** Both instances run the route's template; only the lease holder logs in and lists, once per poll. */
    @Test
    @Order(1)
    void onlyTheLeaseHolderPollsTheSuppliersServer() throws Exception {
        await().atMost(Duration.ofSeconds(60)).until(() -> leader() != null && lists(leader()) >= 3);
        String leader = leader();
        String follower = leader.equals("one") ? "two" : "one";
        long listed = lists(leader);
        // on purpose: many polls pass (200 ms apart), and the other instance must not log in for any of them
        Thread.sleep(3000);
        assertThat(lists(leader) - listed).as("polls of %s in 3 s", leader).isGreaterThanOrEqualTo(5);
        assertThat(SFTP.count(follower, "login")).as("logins of %s, which does not hold the lease", follower).isZero();
        assertThat(lists(follower)).as("listings of %s", follower).isZero();
        // one session for all those polls: the server sees one login per instance that polls, not one per instance
        assertThat(SFTP.count(leader, "login")).isEqualTo(1);
        assertThat(gauge(leader)).isEqualTo(1.0);
        assertThat(gauge(follower)).isEqualTo(0.0);
        assertThat(instance(follower).getBean(org.apache.camel.CamelContext.class).getRouteController()
                .getRouteStatus(ROUTE).isStopped()).as("the route on %s", follower).isTrue();
        // a stopped route is no fault: the instance that does not poll stays healthy (and in its load balancer)
        assertThat(instance(follower).getBean(HealthEndpoint.class).health().getStatus()).as("health of %s", follower)
                .isEqualTo(Status.UP);

        // where operators look: the admin overview of any instance names the one that polls
        String port = instance(follower).getEnvironment().getProperty("local.server.port");
        HttpResponse<String> overview = HttpClient.newHttpClient().send(HttpRequest
                .newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/admin/overview"))
                .header("X-Api-Key", "admin-demo-key").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(overview.statusCode()).as(overview.body()).isEqualTo(200);
        JsonNode leaders = new JsonMapper().readTree(overview.body()).path("sftpLeaders");
        assertThat(leaders.size()).as(overview.body()).isEqualTo(1);
        assertThat(leaders.get(0).path("routeId").asString()).isEqualTo(ROUTE);
        assertThat(leaders.get(0).path("owner").asString()).isEqualTo(leader);

        for (int i = 0; i < 5; i++) {
            publish("steady-" + i + ".csv");
        }
        awaitJobs(5);
        assertThat(jdbc.queryForList("SELECT DISTINCT created_by FROM content_key", String.class))
                .containsExactly(leader);
    }

    /**
     * The holder loses its database (its pool closed: renewals fail, and it can give nothing back, as a killed
     * instance): it stops polling before its lease runs out, the other instance takes over once it has, within the
     * lease and a renewal, and picks up a new file. Then the instance is closed without a database, as killed.
     */
    @Test
    @Order(2)
    void aHolderWithoutItsDatabaseStopsPollingBeforeTheOtherTakesOver() throws Exception {
        String leader = leader();
        String follower = leader.equals("one") ? "two" : "one";
        long gone = System.nanoTime();
        instance(leader).getBean(DataSource.class).unwrap(HikariDataSource.class).close();

        // lease, a renewal, the route's first poll a second after it starts, and a margin for a busy machine
        await().atMost(LEASE.plus(RENEWAL).plusSeconds(6)).until(() -> lists(follower) > 0);
        // on purpose: several poll intervals, in which an old holder still polling would list the folder again
        Thread.sleep(1000);
        long leaderLastList = last(leader, "list");
        long followerFirstLogin = first(follower, "login");
        assertThat(leaderLastList).as("%s's last poll came before %s's first login", leader, follower)
                .isLessThan(followerFirstLogin);
        assertThat(Duration.ofNanos(leaderLastList - gone)).as("%s polled on without its lease", leader)
                .isLessThan(LEASE.minus(RENEWAL).plus(POLL).plusMillis(500));
        // the lease was waited out: taken no earlier than a lease after the holder's last renewal
        assertThat(Duration.ofNanos(followerFirstLogin - gone)).isGreaterThan(LEASE.minus(RENEWAL));
        assertThat(leader()).isEqualTo(follower);

        publish("after-takeover.csv");
        awaitJobs(6);
        // killed: closed without a database, so its lease is never given back
        instance(leader).close();
        assertThat(leader()).isEqualTo(follower);
        Thread.sleep(1000); // on purpose: more polls, and no file taken twice
        assertThat(jobsByFile()).allSatisfy(count -> assertThat(count).isEqualTo(1L));
    }

    /** A clean stop gives the lease back: another instance takes over within a renewal, not a lease. */
    @Test
    @Order(3)
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aCleanStopHandsOverAtOnce() throws Exception {
        String leader = leader();
        three = start("three");
        // three tries the lease (and fails) a few times
        Thread.sleep(3 * RENEWAL.toMillis());
        assertThat(leader()).isEqualTo(leader);
        assertThat(SFTP.count("three", "login")).isZero();

        instance(leader).close();
        long stopped = System.nanoTime();
        await().atMost(RENEWAL.plusSeconds(2)).until(() -> "three".equals(leader()));
        assertThat(Duration.ofNanos(System.nanoTime() - stopped)).isLessThan(LEASE);
        await().atMost(Duration.ofSeconds(10)).until(() -> lists("three") > 0);
        publish("after-handover.csv");
        awaitJobs(7);
        assertThat(jobsByFile()).allSatisfy(count -> assertThat(count).isEqualTo(1L));
    }

    private static ConfigurableApplicationContext instance(String name) {
        return switch (name) {
            case "one" -> one;
            case "two" -> two;
            default -> three;
        };
    }

    /** The instance holding the route's lease now, by the database. */
    private static String leader() {
        List<String> owner = jdbc.queryForList(
                "SELECT owner FROM route_leader WHERE route_id = ? AND expires_at > now()",
                String.class, ROUTE);
        return owner.isEmpty() ? null : owner.get(0);
    }

    private static long lists(String user) {
        return SFTP.count(user, "list");
    }

    private static long first(String user, String kind) {
        return SFTP.events().stream().filter(e -> e.username().equals(user) && e.kind().equals(kind))
                .mapToLong(TestSftpServer.Event::nanoTime).min().orElseThrow();
    }

    private static long last(String user, String kind) {
        return SFTP.events().stream().filter(e -> e.username().equals(user) && e.kind().equals(kind))
                .mapToLong(TestSftpServer.Event::nanoTime).max().orElseThrow();
    }

    private static double gauge(String name) {
        return instance(name).getBean(MeterRegistry.class).get("ingestor.sftp.leader").tag("supplier", "ACME")
                .gauge().value();
    }

    private static void publish(String name) throws IOException {
        Path temp = Files.createTempFile(SFTP.root(), "upload", ".tmp");
        Files.writeString(temp, "source_id,sku,quantity,delivery_date\n" + name + ",SKU,1,2026-12-01\n",
                StandardCharsets.UTF_8);
        Files.move(temp, OUTBOX.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    private static void awaitJobs(long files) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> jdbc.queryForObject("SELECT count(*) FROM import_job", Long.class) == files);
        assertThat(jobsByFile()).hasSize((int) files).allSatisfy(count -> assertThat(count).isEqualTo(1L));
    }

    /** Jobs per file name: every file is one job. */
    private static List<Long> jobsByFile() {
        return jdbc.queryForList("SELECT count(*) FROM import_job GROUP BY file_name", Long.class);
    }
}
