package dev.ingestor.wakeup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;

import dev.ingestor.support.LiveEvents;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestPostgres;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * With the listener switched off (ingestor.wakeups.enabled=false), the stages' polls alone still serve, and no
 * transaction notifies: nobody would hear it, and a notifying commit holds PostgreSQL's notification queue lock
 * through its flush.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
// slow tier: a context of its own
@SlowTest
class WakeupsOffTest {

    static final String DATABASE = "ingestor_wakeups_off";

    @Autowired
    NoticeListener listener;
    @Autowired
    JdbcTemplate jdbc;
    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void listenerOff(DynamicPropertyRegistry registry) {
        WakeupTest.properties(registry, DATABASE);
        registry.add("ingestor.wakeups.enabled", () -> "false");
        registry.add("ingestor.pipeline.poll-interval", () -> "2s");
    }

    @Test
    void thePollsAloneStillBringAPushedFileToItsEvent() throws Exception {
        try (LiveEvents events = new LiveEvents("ingestor.items")) {
            UUID job = WakeupTest.pushOneRecord(port, "off");

            // two polls of each stage at most, and the margin of a busy machine
            assertThat(events.awaitArrival(job, Duration.ofSeconds(20))).isNotNull();
        }
        assertThat(listener.isListening()).isFalse();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_stat_activity WHERE datname = ?"
                + " AND application_name = 'ingestor wakeup listener'", Long.class, DATABASE)).isZero();
    }

    @Test
    void noTransactionNotifiesWhileNoInstanceListensAndOnceOneDoesItDoes() throws Exception {
        try (Connection eavesdropper = DriverManager.getConnection(TestPostgres.jdbcUrl(DATABASE));
                Statement listen = eavesdropper.createStatement()) {
            for (String channel : WorkChannels.ALL) {
                listen.execute("LISTEN " + channel);
            }
            assertThat(jdbc.queryForObject("SELECT count(*) FROM wakeup_listener", Long.class)).isZero();

            // through every stage with nobody listening, and then a job sent back (what revalidate does), which
            // the trigger tells of
            UUID job;
            try (LiveEvents events = new LiveEvents("ingestor.items")) {
                job = WakeupTest.pushOneRecord(port, "unheard");
                assertThat(events.awaitArrival(job, Duration.ofSeconds(20))).isNotNull();
            }
            String sendBack = "UPDATE import_job SET state = 'RECEIVED', lease_owner = NULL, lease_until = NULL"
                    + " WHERE id = ? AND state = 'COMPLETED'";
            assertThat(jdbc.update(sendBack, job)).isEqualTo(1);
            assertThat(WakeupTest.notes(eavesdropper, Duration.ofSeconds(1))).as("notified with no listener registered")
                    .isZero();

            // what an instance's listener keeps while it listens
            jdbc.update(
                    "INSERT INTO wakeup_listener (instance, listening_until) VALUES ('other', now() + interval '1 minute')");
            try {
                await().atMost(Duration.ofSeconds(20)).until(() -> jdbc.update(sendBack, job) == 1);
                assertThat(WakeupTest.notes(eavesdropper, Duration.ofSeconds(5)))
                        .as("notified with a listener registered")
                        .isPositive();
            } finally {
                jdbc.update("DELETE FROM wakeup_listener WHERE instance = 'other'");
            }
        }
    }

    @Test
    void aJobOrAnEventInsertedNotifiesNothingInItsOwnTransaction() throws Exception {
        UUID job = UUID.randomUUID();
        UUID event = UUID.randomUUID();
        jdbc.update(
                "INSERT INTO wakeup_listener (instance, listening_until) VALUES ('other', now() + interval '1 minute')");
        try (Connection eavesdropper = DriverManager.getConnection(TestPostgres.jdbcUrl(DATABASE));
                Statement listen = eavesdropper.createStatement()) {
            for (String channel : WorkChannels.ALL) {
                listen.execute("LISTEN " + channel);
            }

            // a notify in the inserting transaction would hold every concurrent push's commit behind the
            // notification queue's lock (WorkNotices tells of a new job and of events after their commit instead)
            jdbc.update("INSERT INTO import_job (id, supplier, state, key, file_name, size, source)"
                    + " VALUES (?, 'ACME', 'RECEIVED', ?, 'by-sql.csv', 1, 'sql')", job, "ACME:" + job);
            // a topic no relay serves, so that the row stays for the cleanup
            jdbc.update("INSERT INTO outbox (event_id, topic, event_key, payload) VALUES (?, 'by-sql', 'k', '{}')",
                    event);
            assertThat(WakeupTest.notes(eavesdropper, Duration.ofSeconds(2)))
                    .as("notified by the inserts' transactions").isZero();
        } finally {
            jdbc.update("DELETE FROM wakeup_listener WHERE instance = 'other'");
            jdbc.update("DELETE FROM import_job WHERE id = ?", job);
            jdbc.update("DELETE FROM outbox WHERE event_id = ?", event);
        }
    }
}
