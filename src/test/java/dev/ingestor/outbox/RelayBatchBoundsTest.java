package dev.ingestor.outbox;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.springframework.util.unit.DataSize;
import tools.jackson.databind.json.JsonMapper;

/**
 * A relay round takes at most {@code ingestor.outbox.batch-size} events and at most
 * {@code ingestor.outbox.batch-bytes} of payloads, oldest first and without a gap, and always at least the
 * oldest event, however large: the relay's memory stays bounded and it never stalls on one large event. A round
 * reads one slice of its topic, so the events here have keys of one slice.
 */
class RelayBatchBoundsTest extends IngestorTestSupport {

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
    void aRoundStopsAtTheByteBoundAndAlwaysTakesTheOldestEvent() {
        // a topic no relay serves, so the events stay unpublished for this test to read
        String topic = "bounds-" + UUID.randomUUID();
        OutboxStore store = store(100, DataSize.ofKilobytes(10));
        String fourKiB = payload(4096);
        List<String> k = keysOfOneSlice(10);
        List<OutboxWriter.Event> events = new java.util.ArrayList<>();
        for (int i = 0; i < 10; i++) {
            events.add(new OutboxWriter.Event(UUID.randomUUID(), k.get(i), fourKiB));
        }
        transactions.executeWithoutResult(status -> writer.write(topic, events));

        // 2 x 4 KiB fit in 10 KiB, a third would not: two events, the oldest two
        List<OutboxEvent> round = store.nextBatch(topic, SLICE);
        assertThat(round).extracting(OutboxEvent::key).containsExactly(k.get(0), k.get(1));

        // one event larger than the bound on its own still goes, alone
        OutboxStore tiny = store(100, DataSize.ofBytes(100));
        assertThat(tiny.nextBatch(topic, SLICE)).extracting(OutboxEvent::key).containsExactly(k.get(0));

        // and the count bound holds as before
        OutboxStore few = store(3, DataSize.ofMegabytes(16));
        assertThat(few.nextBatch(topic, SLICE)).extracting(OutboxEvent::key).containsExactly(k.get(0), k.get(1),
                k.get(2));
    }

    @Test
    void aRoundIsAPrefixInOrderNeverALaterSmallerEventPastALargerOne() {
        String topic = "bounds-" + UUID.randomUUID();
        List<String> k = keysOfOneSlice(3);
        String small = k.get(0);
        String large = k.get(1);
        String tiny = k.get(2);
        List<OutboxWriter.Event> events = List.of(
                new OutboxWriter.Event(UUID.randomUUID(), small, payload(2 * 1024)),
                new OutboxWriter.Event(UUID.randomUUID(), large, payload(9 * 1024)),
                new OutboxWriter.Event(UUID.randomUUID(), tiny, payload(100)));
        transactions.executeWithoutResult(status -> writer.write(topic, events));
        // 2 KiB fit in 10 KiB, 2 + 9 do not: the round ends there, the tiny one after it waits its turn
        assertThat(store(100, DataSize.ofKilobytes(10)).nextBatch(topic, SLICE)).extracting(OutboxEvent::key)
                .containsExactly(small);
        assertThat(store(100, DataSize.ofKilobytes(12)).nextBatch(topic, SLICE)).extracting(OutboxEvent::key)
                .containsExactly(small, large, tiny);
    }

    private static final int SLICE = 0;

    /** Keys whose events fall in slice {@link #SLICE} (the outbox's slice column, spelt again). */
    private List<String> keysOfOneSlice(int count) {
        return jdbc.queryForList("SELECT 'k' || g FROM generate_series(0, 100000) g"
                + " WHERE (hashtext('k' || g)::bigint + 2147483648) % outbox_slice_count() = ? ORDER BY g LIMIT ?",
                String.class, SLICE, count);
    }

    private static String payload(int bytes) {
        return "{\"x\":\"" + "a".repeat(bytes - 8) + "\"}";
    }

    private OutboxStore store(int batchSize, DataSize batchBytes) {
        OutboxSettings settings = new OutboxSettings();
        settings.setBatchSize(batchSize);
        settings.setBatchBytes(batchBytes);
        return new OutboxStore(jdbc, deadLetters, new JsonMapper(), metrics, new KafkaSettings(), settings,
                new RetentionSettings(), instanceId);
    }
}
