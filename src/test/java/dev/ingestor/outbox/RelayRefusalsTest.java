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
