package dev.ingestor.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

/**
 * A relay round written as text (Camel's simple language does so whenever a comparison with the body fails, every
 * round) names its slice and how many events it holds, in a few dozen characters, whatever their payloads; an
 * event never shows its payload.
 */
class RelayRoundTextTest {

    @Test
    void aRoundIsWrittenAsItsSliceAndCountNotItsEvents() {
        String record = "{\"source_id\":\"SECRET-RECORD\",\"sku\":\"" + "x".repeat(10_000) + "\"}";
        List<OutboxEvent> events = new ArrayList<>();
        for (long id = 1; id <= 100; id++) {
            events.add(new OutboxEvent(id, UUID.randomUUID(), "ACME:" + id, record));
        }
        RelayRound round = new RelayRound("ingestor.items", 7, "instance-1", false, 0L, events);

        assertThat(round.toString()).isEqualTo(
                "RelayRound[topic=ingestor.items, slice=7, owner=instance-1, 100 events (ids 1 to 100)]");
        assertThat(events.get(0).toString()).doesNotContain("SECRET-RECORD")
                .endsWith("key=ACME:1, payload of " + record.length() + " chars]");
        assertThat(new RelayRound("t", 0, "o", true, 0L, List.of()).toString())
                .isEqualTo("RelayRound[topic=t, slice=0, owner=o, 0 events]");
    }
}
