package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.InstanceId;
import dev.ingestor.intake.IntakeSettings;
import dev.ingestor.support.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/** The claim table that keeps two instances from taking one inbox file, on a real PostgreSQL. */
class FileClaimRepositoryTest {

    private static JdbcTemplate jdbc;

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

        assertThat(one.add("/inbox/ACME/a.csv")).isTrue();
        assertThat(two.add("/inbox/ACME/a.csv")).isFalse();
        assertThat(one.add("/inbox/ACME/a.csv")).isFalse();
        assertThat(two.add("/inbox/ACME/b.csv")).isTrue();
    }

    @Test
    void onlyTheOwnerReleasesAClaim() {
        FileClaimRepository one = instance("one", Duration.ofMinutes(10));
        FileClaimRepository two = instance("two", Duration.ofMinutes(10));
        one.add("/inbox/ACME/a.csv");

        assertThat(two.remove("/inbox/ACME/a.csv")).isFalse();
        assertThat(two.add("/inbox/ACME/a.csv")).isFalse();
        assertThat(one.remove("/inbox/ACME/a.csv")).isTrue();
        assertThat(two.add("/inbox/ACME/a.csv")).isTrue();
    }

    @Test
    void aClaimOlderThanTheLeaseIsTakenOverFromADeadInstance() {
        FileClaimRepository dead = instance("dead", Duration.ofMinutes(10));
        FileClaimRepository alive = instance("alive", Duration.ofSeconds(30));
        dead.add("/inbox/ACME/a.csv");
        assertThat(alive.add("/inbox/ACME/a.csv")).isFalse();

        jdbc.update("UPDATE file_claim SET claimed_at = now() - interval '31 seconds'");
        assertThat(alive.add("/inbox/ACME/a.csv")).isTrue();
        assertThat(jdbc.queryForObject("SELECT owner FROM file_claim", String.class)).isEqualTo(alive.owner());
        // the dead instance, should it wake up, no longer owns the claim
        assertThat(dead.remove("/inbox/ACME/a.csv")).isFalse();
    }

    @Test
    void aClaimWhoseReleaseFailedIsTakenAgainByItsOwnerAtOnceAndByOthersAfterTheLease() throws SQLException {
        FileClaimRepository one = instance("one", Duration.ofMinutes(10));
        FileClaimRepository two = instance("two", Duration.ofMinutes(10));
        assertThat(one.add("/inbox/ACME/a.csv")).isTrue();

        // the database away at the release: the claim stays behind
        allowConnections(false);
        try {
            assertThatThrownBy(() -> one.remove("/inbox/ACME/a.csv")).isInstanceOf(DataAccessException.class);
        } finally {
            allowConnections(true);
        }
        assertThat(jdbc.queryForObject("SELECT owner FROM file_claim", String.class)).isEqualTo(one.owner());

        // another instance cannot tell it from a file still being read, so it waits for the lease
        assertThat(two.add("/inbox/ACME/a.csv")).isFalse();
        // its owner knows it let the file go, so the file (or the next of that name) is not held back for the lease
        assertThat(one.add("/inbox/ACME/a.csv")).isTrue();
        // and holds it again until it releases it
        assertThat(one.add("/inbox/ACME/a.csv")).isFalse();
    }

    @Test
    void aClaimStoredWhoseAnswerWasLostIsTakenByItsOwnerAtOnce() {
        FileClaimRepository one = instance("one", Duration.ofMinutes(10));
        // the insert committed, then the connection broke before its answer: the owner never held it
        jdbc.update("INSERT INTO file_claim (claim_key, owner) VALUES ('/inbox/ACME/a.csv', ?)", one.owner());

        assertThat(instance("two", Duration.ofMinutes(10)).add("/inbox/ACME/a.csv")).isFalse();
        assertThat(one.add("/inbox/ACME/a.csv")).isTrue();
    }

    @Test
    void anotherRunWithTheSameIdWaitsForTheLeaseLikeAnyOtherInstance() {
        FileClaimRepository running = instance("one", Duration.ofMinutes(10));
        FileClaimRepository started = instance("one", Duration.ofMinutes(10));
        assertThat(running.add("/inbox/ACME/a.csv")).isTrue();

        assertThat(started.add("/inbox/ACME/a.csv")).isFalse();
        assertThat(started.remove("/inbox/ACME/a.csv")).isFalse();
        assertThat(jdbc.queryForObject("SELECT owner FROM file_claim", String.class)).isEqualTo(running.owner());
    }

    @Test
    void aHoldCamelNeverLetGoIsDecidedByTheDatabaseAgainAfterTheLease() {
        FileClaimRepository one = instance("one", Duration.ofMillis(500));
        // taken, then never released (a download that failed after the read lock); the lapsed row is recovered
        assertThat(one.add("/inbox/ACME/a.csv")).isTrue();
        jdbc.update("DELETE FROM file_claim");
        assertThat(one.add("/inbox/ACME/a.csv")).isFalse();

        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
                .until(() -> one.add("/inbox/ACME/a.csv"));
        assertThat(one.add("/inbox/ACME/a.csv")).isFalse();
    }

    /** A real outage of this test's database for new connections; each call of the repository opens its own. */
    private static void allowConnections(boolean allowed) throws SQLException {
        try (Connection admin = TestPostgres.server().getPostgresDatabase().getConnection();
                Statement statement = admin.createStatement()) {
            statement.execute("ALTER DATABASE claims WITH ALLOW_CONNECTIONS " + allowed);
        }
    }
}
