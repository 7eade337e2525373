package dev.ingestor.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.TestKafka;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * On the real broker: a refusal that every event meets alike never turns the backlog into dead letters. A topic that
 * takes no timestamp older than the broker's clock ({@code message.timestamp.before.max.ms=0}, as a producer's clock
 * behind the broker's would make it) refuses each record of a batch; with several refused in one batch the producer
 * gives each a bare InvalidRecordException. The events wait, and the event sent alone then hears the broker's own
 * answer, a refused timestamp, and waits too.
 */
class RelayRefusalsTest extends IngestorTestSupport {

    @Autowired
    OutboxWriter writer;
    @Autowired
    OutboxStore store;
    @Autowired
    OutboxRelay relay;
    @Autowired
    TransactionTemplate transactions;

    @Test
    void eventsABrokerRefusesAlikeWaitInTheOutboxAndAreNoDeadLetters() throws Exception {
        String topic = "refused-alike-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", TestKafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
                    .configs(Map.of("message.timestamp.before.max.ms", "0")))).all().get();
        }
        List<OutboxWriter.Event> events = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            UUID id = UUID.randomUUID();
            // one key: one slice, one partition
            events.add(new OutboxWriter.Event(id, "one-key", "{\"event_id\":\"" + id + "\",\"seq\":" + i + "}"));
        }
        transactions.executeWithoutResult(status -> writer.write(topic, events));
        // the producer waits 50 ms for more records before a batch goes: every stamp is older than the broker's clock
        String endpoint = "kafka:" + topic + "?requestRequiredAcks=all&enableIdempotence=true&lingerMs=50";

        RelayRound batch = transactions.execute(status -> store.take(topic, "test-instance/refusals"));
        assertThat(batch.oneAlone()).isFalse();
        RelaySettlement together = relay.send(batch, endpoint);
        transactions.executeWithoutResult(status -> store.settle(together));
        assertThat(together.refused()).as("refused in a batch: %s", together.firstFailure()).isEmpty();
        assertThat(together.published()).isEmpty();

        RelayRound alone = transactions.execute(status -> store.take(topic, "test-instance/refusals"));
        assertThat(alone.oneAlone()).as("the next round sends one event alone").isTrue();
        RelaySettlement single = relay.send(alone, endpoint);
        transactions.executeWithoutResult(status -> store.settle(single));
        assertThat(single.refused()).as("refused alone: %s", single.firstFailure()).isEmpty();
        assertThat(single.firstFailure()).contains("timestamp");

        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox WHERE topic = ?", Long.class, topic))
                .as("every event waits").isEqualTo(20);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM dead_letter WHERE stage = 'relay'", Long.class))
                .isZero();
    }

    /**
     * A record larger than the topic's segments ({@code segment.bytes}, as small as 1 MB) is refused by the broker
     * however often it comes, even where the topic's {@code max.message.bytes} and {@code max-event-size} allow it:
     * sent alone, it becomes a dead letter, and the slice's next event goes out.
     */
    @Test
    void anEventLargerThanTheTopicsSegmentsBecomesADeadLetterOnceSentAlone() throws Exception {
        String topic = "segment-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", TestKafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
                    .configs(Map.of("segment.bytes", "1048576", "max.message.bytes", "3000000")))).all().get();
        }
        UUID large = UUID.randomUUID();
        UUID small = UUID.randomUUID();
        transactions.executeWithoutResult(status -> writer.write(topic, List.of(
                new OutboxWriter.Event(large, "one-key",
                        "{\"event_id\":\"" + large + "\",\"x\":\"" + "x".repeat(2_000_000) + "\"}"),
                new OutboxWriter.Event(small, "one-key", "{\"event_id\":\"" + small + "\"}"))));
        // a relay whose max-event-size allows 3 MB
        String endpoint = "kafka:" + topic + "?requestRequiredAcks=all&enableIdempotence=true&lingerMs=5"
                + "&maxBlockMs=2000&requestTimeoutMs=2000&deliveryTimeoutMs=4000&maxRequestSize=3000000";
        try {
            List<String> rounds = new ArrayList<>();
            for (int i = 0; i < 4 && count("SELECT count(*) FROM outbox WHERE topic = ?", topic) > 0; i++) {
                RelayRound round = transactions.execute(status -> store.take(topic, "test-instance/segment"));
                RelaySettlement settlement = relay.send(round, endpoint);
                transactions.executeWithoutResult(status -> store.settle(settlement));
                rounds.add((round.oneAlone() ? "alone" : "whole") + ": " + settlement.published().size()
                        + " published, " + settlement.refused().size() + " refused, " + settlement.waiting()
                        + " waiting (" + settlement.firstFailure() + ")");
            }

            assertThat(count("SELECT count(*) FROM outbox WHERE topic = ?", topic)).as("rounds %s", rounds).isZero();
            assertThat(jdbc.queryForObject("SELECT refused FROM outbox_published WHERE event_id = ?", String.class,
                    large)).contains("RecordBatchTooLargeException");
            assertThat(jdbc.queryForObject("SELECT refused IS NULL FROM outbox_published WHERE event_id = ?",
                    Boolean.class, small)).isTrue();
            assertThat(jdbc.queryForList("SELECT message FROM dead_letter WHERE stage = 'relay'", String.class))
                    .singleElement().asString().contains(large.toString());
        } finally {
            jdbc.update("DELETE FROM outbox WHERE topic = ?", topic);
        }
    }

    private long count(String sql, Object... args) {
        return jdbc.queryForObject(sql, Long.class, args);
    }

    /**
     * A round that never got to hand its events to the producer (another round of this instance held it for a lone
     * event past the hand-over time) heard nothing from Kafka: its slice keeps sending batches, not one event alone.
     */
    @Test
    void aRoundThatNeverHandedItsEventsOverLeavesItsSliceAsItWas() throws Exception {
        String topic = "not-handed-over-" + UUID.randomUUID();
        UUID id = UUID.randomUUID();
        transactions.executeWithoutResult(status -> writer.write(topic,
                List.of(new OutboxWriter.Event(id, "k", "{\"event_id\":\"" + id + "\"}"))));
        RelayRound taken = transactions.execute(status -> store.take(topic, "test-instance/late"));
        // taken an hour ago, as far as the hand-over time is concerned: past it before anything is sent
        RelayRound late = new RelayRound(taken.topic(), taken.slice(), taken.owner(), taken.oneAlone(),
                System.nanoTime() - java.time.Duration.ofHours(1).toNanos(), taken.events());
        RelaySettlement settlement = relay.send(late, "kafka:" + topic + "?requestRequiredAcks=all");
        assertThat(settlement.handedOver()).isFalse();
        assertThat(settlement.waiting()).isEqualTo(1);
        transactions.executeWithoutResult(status -> store.settle(settlement));

        assertThat(jdbc.queryForObject("SELECT one_alone FROM outbox_lease WHERE topic = ? AND slice = ?",
                Boolean.class, topic, taken.slice())).isFalse();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox WHERE topic = ?", Long.class, topic))
                .as("it waits").isEqualTo(1);
    }
}
