package dev.ingestor.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.ingestor.config.InstanceId;
import dev.ingestor.config.KafkaSettings;
import dev.ingestor.config.RetentionSettings;
import dev.ingestor.metrics.IngestorMetrics;
import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * A relay round's settle: a published event leaves the outbox for the archive, or for nowhere when
 * {@code ingestor.retention.outbox-max-age} is 0; settled again (by a relay whose lease ran out meanwhile), it
 * moves nothing twice.
 */
class RelaySettleTest extends IngestorTestSupport {

    @Autowired
    OutboxWriter writer;
    @Autowired
    DeadLetterWriter deadLetters;
    @Autowired
    IngestorMetrics metrics;
    @Autowired
    TransactionTemplate transactions;
    @Autowired
    InstanceId instanceId;

    @Test
    void aPublishedEventMovesToTheArchiveOnceAndTheLeaseIsGivenBack() {
        String topic = "settle-" + UUID.randomUUID();
        OutboxStore store = store(Duration.ofDays(7));
        RelaySettlement settlement = publishedRound(store, topic);

        assertThat(settle(store, settlement)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM outbox WHERE topic = ?", topic)).isZero();
        assertThat(count("SELECT count(*) FROM outbox_published WHERE topic = ? AND published_at IS NOT NULL",
                topic)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM outbox_lease WHERE topic = ? AND expires_at IS NOT NULL", topic))
                .isZero();
        // the same answers settled once more: nothing left to move, nothing archived twice
        assertThat(settle(store, settlement)).isZero();
        assertThat(count("SELECT count(*) FROM outbox_published WHERE topic = ?", topic)).isEqualTo(1);
    }

    @Test
    void withoutAnArchiveAPublishedEventIsDeleted() {
        String topic = "settle-" + UUID.randomUUID();
        OutboxStore store = store(Duration.ZERO);
        RelaySettlement settlement = publishedRound(store, topic);

        assertThat(settle(store, settlement)).isEqualTo(1);
        assertThat(count("SELECT count(*) FROM outbox_all WHERE topic = ?", topic)).isZero();
    }

    /** One event written, its slice taken, and Kafka's answer: acknowledged. */
    private RelaySettlement publishedRound(OutboxStore store, String topic) {
        UUID id = UUID.randomUUID();
        transactions.executeWithoutResult(status -> writer.write(topic,
                List.of(new OutboxWriter.Event(id, "k", "{\"event_id\":\"" + id + "\"}"))));
        RelayRound round = transactions.execute(status -> store.take(topic, "test/relay-1"));
        assertThat(round.events()).extracting(OutboxEvent::eventId).containsExactly(id);
        return new RelaySettlement(round, round.events(), List.of(), 0, null, true);
    }

    private int settle(OutboxStore store, RelaySettlement settlement) {
        Integer published = transactions.execute(status -> store.settle(settlement));
        return published == null ? -1 : published;
    }

    private long count(String sql, String topic) {
        return jdbc.queryForObject(sql, Long.class, topic);
    }

    private OutboxStore store(Duration outboxMaxAge) {
        RetentionSettings retention = new RetentionSettings();
        retention.setOutboxMaxAge(outboxMaxAge);
        return new OutboxStore(jdbc, deadLetters, new JsonMapper(), metrics, new KafkaSettings(), new OutboxSettings(),
                retention, instanceId);
    }
}
