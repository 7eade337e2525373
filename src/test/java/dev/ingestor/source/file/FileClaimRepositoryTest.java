package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.InstanceId;
import dev.ingestor.intake.IntakeSettings;
import dev.ingestor.support.CapturedLogs;
import dev.ingestor.support.TestPostgres;
import jakarta.validation.Validation;
import jakarta.validation.ValidatorFactory;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/** The claim table that keeps two instances from taking one inbox file, on a real PostgreSQL. */
class FileClaimRepositoryTest {

    private static JdbcTemplate jdbc;
    /** The context the takes' exchanges belong to; never started. */
    private static final CamelContext EXCHANGES = new DefaultCamelContext();

    @BeforeAll
    static void database() {
        jdbc = TestPostgres.migrated("claims");
    }

    @BeforeEach
    void empty() {
        jdbc.execute("TRUNCATE file_claim");
    }

    private static FileClaimRepository instance(String name, Duration lease) {
        IngestorProperties properties = new IngestorProperties();
        properties.setInstanceId(name);
        IntakeSettings intake = new IntakeSettings();
        intake.setClaimLease(lease);
        return new FileClaimRepository(jdbc, new InstanceId(properties), intake);
    }

    @Test
    void aFileClaimedByOneInstanceCannotBeClaimedByAnother() {
        FileClaimRepository one = instance("one", Duration.ofMinutes(10));
        FileClaimRepository two = instance("two", Duration.ofMinutes(10));

        assertThat(one.add(exchange(), "/inbox/ACME/a.csv")).isTrue();
        assertThat(two.add(exchange(), "/inbox/ACME/a.csv")).isFalse();
        assertThat(one.add(exchange(), "/inbox/ACME/a.csv")).isFalse();
        assertThat(two.add(exchange(), "/inbox/ACME/b.csv")).isTrue();
    }

    @Test
    void onlyTheOwnerReleasesAClaim() {
        FileClaimRepository one = instance("one", Duration.ofMinutes(10));
        FileClaimRepository two = instance("two", Duration.ofMinutes(10));
        one.add(exchange(), "/inbox/ACME/a.csv");

        assertThat(two.release("/inbox/ACME/a.csv")).isFalse();
        assertThat(two.add(exchange(), "/inbox/ACME/a.csv")).isFalse();
        assertThat(one.release("/inbox/ACME/a.csv")).isTrue();
        assertThat(two.add(exchange(), "/inbox/ACME/a.csv")).isTrue();
    }

    @Test
    void aClaimOlderThanTheLeaseIsTakenOverFromADeadInstance() {
        FileClaimRepository dead = instance("dead", Duration.ofMinutes(10));
        FileClaimRepository alive = instance("alive", Duration.ofSeconds(30));
        dead.add(exchange(), "/inbox/ACME/a.csv");
        assertThat(alive.add(exchange(), "/inbox/ACME/a.csv")).isFalse();

        jdbc.update("UPDATE file_claim SET claimed_at = now() - interval '31 seconds'");
        assertThat(alive.add(exchange(), "/inbox/ACME/a.csv")).isTrue();
        assertThat(jdbc.queryForObject("SELECT owner FROM file_claim", String.class)).isEqualTo(alive.owner());
        // the dead instance, should it wake up, no longer owns the claim
        assertThat(dead.release("/inbox/ACME/a.csv")).isFalse();
    }

    @Test
    void aClaimWhoseReleaseFailedIsTakenAgainByItsOwnerAtOnceAndByOthersAfterTheLease() throws SQLException {
        FileClaimRepository one = instance("one", Duration.ofMinutes(10));
        FileClaimRepository two = instance("two", Duration.ofMinutes(10));
        assertThat(one.add(exchange(), "/inbox/ACME/a.csv")).isTrue();

        // the database away at the release: the claim stays behind
        allowConnections(false);
        try {
            assertThatThrownBy(() -> one.release("/inbox/ACME/a.csv")).isInstanceOf(DataAccessException.class);
        } finally {
            allowConnections(true);
        }
        assertThat(jdbc.queryForObject("SELECT owner FROM file_claim", String.class)).isEqualTo(one.owner());

        // another instance cannot tell it from a file still being read, so it waits for the lease
        assertThat(two.add(exchange(), "/inbox/ACME/a.csv")).isFalse();
        // its owner knows it let the file go, so the file (or the next of that name) is not held back for the lease
        assertThat(one.add(exchange(), "/inbox/ACME/a.csv")).isTrue();
        // and holds it again until it releases it
        assertThat(one.add(exchange(), "/inbox/ACME/a.csv")).isFalse();
    }

    @Test
    void aTakeWhoseReleaseFailedIsTakenAgainByItsOwnerAtOnce() throws SQLException {
        FileClaimRepository one = instance("one", Duration.ofMinutes(10));
        Exchange taking = exchange();
        assertThat(one.add(taking, "/inbox/ACME/a.csv")).isTrue();

        allowConnections(false);
        try {
            assertThatThrownBy(() -> one.remove(taking, "/inbox/ACME/a.csv")).isInstanceOf(DataAccessException.class);
        } finally {
            allowConnections(true);
        }
        assertThat(one.holds("/inbox/ACME/a.csv")).as("let go of in memory").isFalse();
        assertThat(instance("two", Duration.ofMinutes(10)).add(exchange(), "/inbox/ACME/a.csv")).as("the row left")
                .isFalse();
        assertThat(one.add(exchange(), "/inbox/ACME/a.csv")).as("taken again by its owner").isTrue();
    }

    @Test
    void aClaimStoredWhoseAnswerWasLostIsTakenByItsOwnerAtOnce() {
        FileClaimRepository one = instance("one", Duration.ofMinutes(10));
        // the insert committed, then the connection broke before its answer: the owner never held it
        jdbc.update("INSERT INTO file_claim (claim_key, owner) VALUES ('/inbox/ACME/a.csv', ?)", one.owner());

        assertThat(instance("two", Duration.ofMinutes(10)).add(exchange(), "/inbox/ACME/a.csv")).isFalse();
        assertThat(one.add(exchange(), "/inbox/ACME/a.csv")).isTrue();
    }

    @Test
    void anotherRunWithTheSameIdWaitsForTheLeaseLikeAnyOtherInstance() {
        FileClaimRepository running = instance("one", Duration.ofMinutes(10));
        FileClaimRepository started = instance("one", Duration.ofMinutes(10));
        assertThat(running.add(exchange(), "/inbox/ACME/a.csv")).isTrue();

        assertThat(started.add(exchange(), "/inbox/ACME/a.csv")).isFalse();
        assertThat(started.release("/inbox/ACME/a.csv")).isFalse();
        assertThat(jdbc.queryForObject("SELECT owner FROM file_claim", String.class)).isEqualTo(running.owner());
    }

    @Test
    void aHoldCamelNeverLetGoIsDecidedByTheDatabaseAgainAfterTheLease() {
        FileClaimRepository one = instance("one", Duration.ofMillis(500));
        // taken, then never released (a download that failed after the read lock); the lapsed row is recovered
        assertThat(one.add(exchange(), "/inbox/ACME/a.csv")).isTrue();
        jdbc.update("DELETE FROM file_claim");
        assertThat(one.add(exchange(), "/inbox/ACME/a.csv")).isFalse();

        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
                .until(() -> one.add(exchange(), "/inbox/ACME/a.csv"));
        assertThat(one.add(exchange(), "/inbox/ACME/a.csv")).isFalse();
    }

    @Test
    void aClaimHeldLongerThanTheLeaseIsRenewedAndNotTakenOver() throws InterruptedException {
        FileClaimRepository one = instance("one", Duration.ofMillis(900));
        FileClaimRepository two = instance("two", Duration.ofMillis(900));
        assertThat(one.add(exchange(), "/inbox/ACME/queued.csv")).isTrue();
        assertThat(one.add(exchange(), "/inbox/ACME/done.csv")).isTrue();
        assertThat(one.release("/inbox/ACME/done.csv")).isTrue();

        // two leases long, renewed every third of one, as the file-claim-renewal route does
        for (int round = 0; round < 6; round++) {
            Thread.sleep(300);
            assertThat(one.renewHeld()).isEqualTo(1);
        }
        assertThat(two.add(exchange(), "/inbox/ACME/queued.csv")).as("still being taken by one").isFalse();
        assertThat(one.add(exchange(), "/inbox/ACME/queued.csv")).as("nor taken anew by one itself").isFalse();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM file_claim WHERE claimed_at < now() - interval '0.9 s'",
                Integer.class)).as("nothing for the recovery to delete").isZero();
    }

    @Test
    void aClaimOfARouteThatStoppedIsNoLongerRenewed() throws Exception {
        FileClaimRepository one = instance("one", Duration.ofMinutes(10));
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:drops").routeId("drops").log("taken");
                }
            });
            camel.start();
            one.renewWhileRoutesRun(camel);
            Exchange taking = exchange();
            taking.getExchangeExtension().setFromRouteId("drops");
            assertThat(one.add(taking, "/inbox/ACME/a.csv")).isTrue();
            assertThat(one.renewHeld()).isEqualTo(1);

            // an SFTP route whose lead went elsewhere, or a supplier's route removed, with a claim Camel never let go
            camel.getRouteController().stopRoute("drops");
            assertThat(one.renewHeld()).as("left to lapse").isZero();
        }
    }

    @Test
    void aClaimTakenOverWhileItCouldNotBeRenewedIsReported() {
        FileClaimRepository one = instance("one", Duration.ofMinutes(10));
        assertThat(one.add(exchange(), "/inbox/ACME/a.csv")).isTrue();
        one.renewHeld();
        // another instance took it over after the lease (here: the row deleted)
        jdbc.update("DELETE FROM file_claim");
        try (CapturedLogs logs = CapturedLogs.of(FileClaimRepository.class.getName())) {
            assertThat(one.renewHeld()).isZero();
            assertThat(logs.events()).extracting(ILoggingEvent::getFormattedMessage)
                    .anyMatch(
                            line -> line.startsWith("1 file claim(s) this instance still holds are no longer its own"));
        }
    }

    @Test
    void aClaimLeaseUnderThreeSecondsIsRefused() {
        IntakeSettings intake = new IntakeSettings();
        intake.setClaimLease(Duration.ofSeconds(2));
        try (ValidatorFactory validation = Validation.buildDefaultValidatorFactory()) {
            assertThat(validation.getValidator().validate(intake)).extracting(v -> v.getPropertyPath().toString())
                    .containsExactly("claimLease");
        }
    }

    @Test
    void anIdempotentConsumersClaimByTheKeyAloneIsRefused() {
        assertThatThrownBy(() -> instance("one", Duration.ofMinutes(10)).add("/inbox/ACME/a.csv"))
                .hasMessageContaining("set idempotent=false");
    }

    @Test
    void aRefusedTakeLetsGoOfNoClaim() {
        FileClaimRepository one = instance("one", Duration.ofMinutes(10));
        FileClaimRepository two = instance("two", Duration.ofMinutes(10));
        Exchange first = exchange();
        Exchange refused = exchange();
        assertThat(one.add(first, "/inbox/ACME/a.csv")).isTrue();
        assertThat(one.add(refused, "/inbox/ACME/a.csv")).isFalse();

        // Camel's read lock lets go of the claim of every take that did not begin, refused or not; then its consumer
        // of every file of the poll it did not start, by the key alone
        assertThat(one.remove(refused, "/inbox/ACME/a.csv")).isFalse();
        assertThat(one.remove("/inbox/ACME/a.csv")).isFalse();
        assertThat(two.add(exchange(), "/inbox/ACME/a.csv")).as("the first take's claim stands").isFalse();
        assertThat(one.holds("/inbox/ACME/a.csv")).isTrue();

        assertThat(one.remove(first, "/inbox/ACME/a.csv")).isTrue();
        assertThat(one.remove(first, "/inbox/ACME/a.csv")).as("once").isFalse();
        assertThat(two.add(exchange(), "/inbox/ACME/a.csv")).isTrue();
    }

    @Test
    void aTakeWhoseHoldWasTakenOverLetsGoOfNoClaim() throws InterruptedException {
        FileClaimRepository one = instance("one", Duration.ofMillis(200));
        Exchange lapsed = exchange();
        Exchange next = exchange();
        assertThat(one.add(lapsed, "/inbox/ACME/a.csv")).isTrue();
        Thread.sleep(300);
        // a hold older than the lease is one Camel never let go: the key is taken anew
        assertThat(one.add(next, "/inbox/ACME/a.csv")).isTrue();

        assertThat(one.remove(lapsed, "/inbox/ACME/a.csv")).isFalse();
        assertThat(instance("two", Duration.ofMinutes(10)).add(exchange(), "/inbox/ACME/a.csv"))
                .as("the next take's claim stands")
                .isFalse();
        assertThat(one.remove(next, "/inbox/ACME/a.csv")).isTrue();
    }

    /**
     * A file dropped again under the same name while the finished one's claim waits for its delayed release: the new
     * file's takes are refused until that release (they let go of nothing), and the release does not let go of the
     * new take's claim, which another instance would then take while this one is still reading the file.
     */
    @Test
    void aFileDroppedAgainDuringTheDelayedReleaseKeepsItsClaimWhileItIsTaken(@TempDir Path inbox) throws Exception {
        FileClaimRepository one = instance("one", Duration.ofMinutes(10));
        FileClaimRepository two = instance("two", Duration.ofMinutes(10));
        List<String> taken = new CopyOnWriteArrayList<>();
        List<Long> takenAt = new CopyOnWriteArrayList<>();
        CountDownLatch secondRead = new CountDownLatch(1);
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.getRegistry().bind("claims", one);
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("file:" + inbox + "?readLock=idempotent&idempotentRepository=#claims&idempotent=false"
                            + "&readLockRemoveOnCommit=true&readLockRemoveOnRollback=true"
                            + "&readLockIdempotentReleaseAsync=true&readLockIdempotentReleaseDelay=1500"
                            + "&initialDelay=0&delay=50&delete=true")
                            .routeId("drops")
                            .process(exchange -> {
                                taken.add(exchange.getMessage().getHeader("CamelFileAbsolutePath", String.class));
                                takenAt.add(System.nanoTime());
                                if (taken.size() == 2) {
                                    secondRead.await(30, TimeUnit.SECONDS);
                                }
                            });
                }
            });
            camel.start();
            Path file = inbox.resolve("a.csv");
            Files.writeString(file, "first\n");
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> !Files.exists(file));
            long done = System.nanoTime();
            Files.writeString(file, "second\n");
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> taken.size() == 2);
                assertThat((takenAt.get(1) - done) / 1_000_000).as("ms from the first file's end to the second's take,"
                        + " where the release comes 1,500 ms after the end").isGreaterThan(1000);
                // past the first file's delayed release, the second is still being read
                Thread.sleep(Math.max(0, 2500 - (System.nanoTime() - done) / 1_000_000));
                assertThat(two.add(exchange(), taken.get(1))).as("the second take's claim stands").isFalse();
                assertThat(one.routeHolding(taken.get(1))).as("renewed while its route runs").isEqualTo("drops");
            } finally {
                secondRead.countDown();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(file));
        }
    }

    /** A take's exchange, outside any route (its claim is renewed like a started route's). */
    private static Exchange exchange() {
        return new DefaultExchange(EXCHANGES);
    }

    /** A real outage of this test's database for new connections; each call of the repository opens its own. */
    private static void allowConnections(boolean allowed) throws SQLException {
        try (Connection admin = TestPostgres.server().getPostgresDatabase().getConnection();
                Statement statement = admin.createStatement()) {
            statement.execute("ALTER DATABASE claims WITH ALLOW_CONNECTIONS " + allowed);
        }
    }
}
