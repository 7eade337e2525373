package dev.ingestor.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TwoBrokerKafka;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * On a cluster of two brokers, one partition of the topic without a leader for longer than the producer's delivery
 * timeout (its only broker down): the events of the partitions that work keep going out, also those of a slice whose
 * oldest event is for the partition that does not.
 */
class RelayPartitionOutageTest extends IngestorTestSupport {

    @Autowired
    OutboxWriter writer;
    @Autowired
    OutboxStore store;
    @Autowired
    OutboxRelay relay;
    @Autowired
    TransactionTemplate transactions;

    // slow tier: a cluster of its own, and rounds that wait out the producer's delivery timeout
    @SlowTest
    @Test
    void eventsOfPartitionsThatWorkGoOutWhileAnotherPartitionHasNoLeader() throws Exception {
        String topic = "partition-outage-" + UUID.randomUUID();
        // housekeeping would give the topic's waiting events relays of the app's own (a topic no longer configured)
        withRouteStopped("housekeeping", () -> {
            try {
                partitionOutage(topic);
            } finally {
                jdbc.update("DELETE FROM outbox WHERE topic = ?", topic);
            }
        });
    }

    private void partitionOutage(String topic) throws Exception {
        try (TwoBrokerKafka kafka = TwoBrokerKafka.start(); Admin admin = kafka.admin()) {
            // partition 0 on node 1, partition 1 on node 2 alone
            admin.createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(1), 1, List.of(2))))).all().get();
            // two keys of one slice: one of the partition that will have no leader, one of the other
            String working = key(0, -1);
            String stuck = key(1, slice(working));
            kafka.stopNode(2);
            UUID first = write(topic, stuck);
            write(topic, working);
            String endpoint = "kafka:" + topic + "?brokers=" + kafka.bootstrapServers()
                    + "&requestRequiredAcks=all&enableIdempotence=true&lingerMs=5&maxBlockMs=2000"
                    + "&requestTimeoutMs=2000&deliveryTimeoutMs=4000";

            List<String> rounds = new ArrayList<>();
            rounds.add(round(topic, endpoint));
            UUID later = write(topic, working);
            for (int i = 0; i < 4 && pending(later); i++) {
                rounds.add(round(topic, endpoint));
            }

            assertThat(pending(later)).as("a later event of a partition that works, after rounds %s", rounds)
                    .isFalse();
            assertThat(pending(first)).as("the event of the partition without a leader waits").isTrue();
            assertThat(jdbc.queryForObject("SELECT count(*) FROM dead_letter", Long.class)).isZero();
        }
    }

    /** One round of the relay: take, send, settle; what it did. */
    private String round(String topic, String endpoint) throws Exception {
        RelayRound taken = transactions.execute(status -> store.take(topic, "test-instance/outage"));
        RelaySettlement settled = relay.send(taken, endpoint);
        transactions.executeWithoutResult(status -> store.settle(settled));
        return (taken.oneAlone() ? "alone" : "whole") + ": " + settled.published().size() + " published, "
                + settled.waiting() + " waiting";
    }

    /** A key of Kafka partition {@code partition} and of outbox slice {@code slice} (-1: any). */
    private String key(int partition, int slice) {
        for (int i = 0;; i++) {
            String key = "ACME:K" + i;
            if (partition(key) == partition && (slice < 0 || slice(key) == slice)) {
                return key;
            }
        }
    }

    private UUID write(String topic, String key) {
        UUID id = UUID.randomUUID();
        transactions.executeWithoutResult(status -> writer.write(topic,
                List.of(new OutboxWriter.Event(id, key, "{\"event_id\":\"" + id + "\"}"))));
        return id;
    }

    private boolean pending(UUID eventId) {
        return jdbc.queryForObject("SELECT count(*) FROM outbox WHERE event_id = ?", Long.class, eventId) > 0;
    }

    private int slice(String key) {
        return jdbc.queryForObject("SELECT ((hashtext(?)::bigint + 2147483648) % outbox_slice_count())::integer",
                Integer.class, key);
    }

    /** The partition of two that Kafka's producer picks for a key. */
    private static int partition(String key) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % 2;
    }
}
