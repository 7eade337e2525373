package dev.ingestor.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

import ch.qos.logback.classic.Level;
import dev.ingestor.support.CapturedLogs;
import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The outbox is vacuumed between autovacuum's visits once its dead rows pass the setting, and only then; not again
 * for rows an open transaction still sees; skipped quietly while another vacuum holds it; a database user that does
 * not own it is told once, and nothing else changes. Autovacuum and the app's own check are off for the outbox during
 * each test, so what vacuums it here is the test's instance (PostgreSQL counts a manual vacuum apart from
 * autovacuum's).
 */
class OutboxVacuumTest extends IngestorTestSupport {

    @Autowired
    OutboxWriter writer;
    @Autowired
    TransactionTemplate transactions;
    @Autowired
    DataSource dataSource;

    /** The outbox's manual vacuums before the test's own. */
    private long baseline;

    @BeforeEach
    void othersVacuumsOff() throws Exception {
        // the app's own check would vacuum the outbox too, once the suite's relays have left dead rows enough
        camelContext.getRouteController().stopRoute("outbox-vacuum");
        jdbc.execute("ALTER TABLE outbox SET (autovacuum_enabled = false)");
    }

    @AfterEach
    void othersVacuumsOn() throws Exception {
        jdbc.execute("ALTER TABLE outbox RESET (autovacuum_enabled)");
        camelContext.getRouteController().startRoute("outbox-vacuum");
    }

    @Test
    void theOutboxIsVacuumedOncePastTheDeadRowsSetAndNotBefore() {
        deadRows(3000);

        assertThat(vacuum(jdbc, 1_000_000).vacuumIfNeeded()).as("3,000 dead rows, under the setting").isFalse();
        assertThat(manualVacuums()).isEqualTo(0);

        assertThat(vacuum(jdbc, 1000).vacuumIfNeeded()).as("past the setting").isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> manualVacuums() == 1);
    }

    @Test
    void aUserThatDoesNotOwnTheOutboxIsToldOnceAndNothingBreaks() {
        deadRows(3000);
        String role = "outsider_" + UUID.randomUUID().toString().substring(0, 8);
        jdbc.execute("CREATE ROLE " + role + " LOGIN");
        jdbc.execute("GRANT SELECT ON outbox TO " + role);
        String url = jdbc.execute((ConnectionCallback<String>) (Connection c) -> c.getMetaData().getURL());
        JdbcTemplate outsider = new JdbcTemplate(
                new DriverManagerDataSource(url.replaceFirst("user=[^&]*", "user=" + role)));
        List<String> logged;
        try (CapturedLogs logs = CapturedLogs.of("dev.ingestor.outbox")) {
            OutboxVacuum vacuum = vacuum(outsider, 1000);
            assertThat(vacuum.vacuumIfNeeded()).isFalse();
            assertThat(vacuum.vacuumIfNeeded()).isFalse();
            logged = logs.messages();
        } finally {
            jdbc.execute("DROP OWNED BY " + role);
            jdbc.execute("DROP ROLE " + role);
        }
        assertThat(logged).filteredOn(line -> line.contains("not vacuumed")).singleElement()
                .satisfies(line -> assertThat(line).contains("does not own table outbox")
                        .contains("ingestor.outbox.vacuum-dead-rows=0"));
        assertThat(manualVacuums()).isEqualTo(0);
    }

    @Test
    void whileAnotherVacuumHoldsTheOutboxTheCheckSkipsItQuietlyAndVacuumsNextTime() throws Exception {
        deadRows(3000);
        OutboxVacuum vacuum = vacuum(jdbc, 1000);
        try (CapturedLogs logs = CapturedLogs.of("dev.ingestor.outbox");
                Connection other = dataSource.getConnection()) {
            other.setAutoCommit(false);
            // the lock a VACUUM (autovacuum's, another instance's) holds
            other.createStatement().execute("LOCK TABLE outbox IN SHARE UPDATE EXCLUSIVE MODE");
            assertThat(vacuum.vacuumIfNeeded()).isFalse();
            other.rollback();
            assertThat(logs.events()).filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN)).isEmpty();
        }
        assertThat(vacuum.vacuumIfNeeded()).as("the lock given back").isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> manualVacuums() == 1);
    }

    @Test
    void deadRowsAnOpenTransactionStillSeesAreNotVacuumedForAgainAndAgain() throws Exception {
        try (Connection reader = dataSource.getConnection()) {
            reader.setAutoCommit(false);
            reader.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            reader.createStatement().execute("SELECT count(*) FROM outbox"); // its snapshot: before the deletes
            deadRows(3000);
            OutboxVacuum vacuum = vacuum(jdbc, 1000);
            assertThat(vacuum.vacuumIfNeeded()).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> manualVacuums() == 1);
            assertThat(stat("n_dead_tup")).as("still seen by the open transaction").isGreaterThanOrEqualTo(3000);
            assertThat(vacuum.vacuumIfNeeded()).as("what the last vacuum left, no more than the setting").isFalse();
            assertThat(vacuum.vacuumIfNeeded()).isFalse();
            assertThat(manualVacuums()).isEqualTo(1);
            reader.rollback();
        }
    }

    /** Events written and deleted, as the relays delete published ones: {@code rows} more dead rows, once counted. */
    private void deadRows(int rows) {
        String topic = "vacuum-" + UUID.randomUUID();
        List<OutboxWriter.Event> events = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            UUID id = UUID.randomUUID();
            events.add(new OutboxWriter.Event(id, "k-" + i, "{\"event_id\":\"" + id + "\"}"));
        }
        transactions.executeWithoutResult(status -> writer.write(topic, events));
        transactions.executeWithoutResult(status -> {
            jdbc.update("DELETE FROM outbox WHERE topic = ?", topic);
            // a busy backend may hold its counts back for up to 10 s: this one reports them as it commits
            jdbc.execute("SELECT pg_stat_force_next_flush()");
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> stat("n_dead_tup") >= rows);
        baseline = stat("vacuum_count");
    }

    private long manualVacuums() {
        return stat("vacuum_count") - baseline;
    }

    private long stat(String column) {
        // the statistics of this backend's own transaction are read as of its start: a fresh snapshot each time
        jdbc.execute("SELECT pg_stat_clear_snapshot()");
        Map<String, Object> row = jdbc.queryForMap("SELECT " + column + " AS v FROM pg_stat_user_tables"
                + " WHERE relid = 'outbox'::regclass");
        return ((Number) row.get("v")).longValue();
    }

    private static OutboxVacuum vacuum(JdbcTemplate jdbc, long deadRows) {
        OutboxSettings settings = new OutboxSettings();
        settings.setVacuumDeadRows(deadRows);
        return new OutboxVacuum(jdbc, settings);
    }
}
