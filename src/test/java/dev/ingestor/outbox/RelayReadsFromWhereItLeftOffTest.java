package dev.ingestor.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.TestKafka;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A busy relay reads its next batch after the last event it settled, not from the start of the unpublished
 * events (OutboxStore): an event whose transaction took its id before that point but committed after the relay
 * went past it is still published, and exactly once.
 */
class RelayReadsFromWhereItLeftOffTest extends IngestorTestSupport {

    private static final String TOPIC = "ingestor.items";

    @Autowired
    DataSource dataSource;
    @Autowired
    OutboxWriter writer;
    @Autowired
    TransactionTemplate transactions;

    @Test
    void anEventCommittedAfterTheRelayWentPastItsIdIsStillPublished() throws Exception {
        String run = "LATE-" + UUID.randomUUID();
        try (Connection late = dataSource.getConnection()) {
            late.setAutoCommit(false);
            long lateId;
            // the late transaction takes its event's id first and commits last
            try (PreparedStatement insert = late.prepareStatement("INSERT INTO outbox (event_id, topic, event_key, payload)"
                    + " VALUES (?, ?, ?, ?) RETURNING id")) {
                insert.setObject(1, UUID.randomUUID());
                insert.setString(2, TOPIC);
                insert.setString(3, run + ":late");
                insert.setString(4, "{\"test\":\"late\"}");
                try (ResultSet rs = insert.executeQuery()) {
                    rs.next();
                    lateId = rs.getLong(1);
                }
            }
            // more than a batch after it, committed at once: the relay publishes them and reads on after them
            List<OutboxWriter.Event> events = new ArrayList<>();
            for (int i = 0; i < 1500; i++) {
                events.add(new OutboxWriter.Event(UUID.randomUUID(), run + ":" + i, "{\"test\":" + i + "}"));
            }
            transactions.executeWithoutResult(status -> writer.write(TOPIC, events));
            await().atMost(Duration.ofSeconds(60)).until(() -> jdbc.queryForObject(
                    "SELECT count(*) FROM outbox WHERE event_key LIKE ? AND published_at IS NOT NULL", Long.class, run + ":%") == 1500);
            assertThat(jdbc.queryForObject("SELECT max(id) FROM outbox WHERE event_key LIKE ?", Long.class, run + ":%"))
                    .as("the relay went past the late event's id").isGreaterThan(lateId);

            late.commit();
            await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                    "SELECT published_at IS NOT NULL FROM outbox WHERE id = ?", Boolean.class, lateId));
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox WHERE event_key LIKE ? AND published_at IS NULL",
                Long.class, run + ":%")).isZero();
        assertThat(TestKafka.readAll(TOPIC, Duration.ofSeconds(1))).filteredOn(r -> (run + ":late").equals(r.key()))
                .as("sent once").hasSize(1);
    }
}
