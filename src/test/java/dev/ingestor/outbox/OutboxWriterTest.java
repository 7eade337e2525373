package dev.ingestor.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import dev.ingestor.processing.ItemStore;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.validation.DeliveryAdvice;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Item events and dead-letter events enter the outbox through {@link OutboxWriter} alone, with ids by its one
 * rule: a fresh random id per effect, the one in the row being the one in the payload.
 */
class OutboxWriterTest extends IngestorTestSupport {

    @Autowired
    OutboxWriter writer;
    @Autowired
    ItemStore items;
    @Autowired
    DeadLetterWriter deadLetters;

    @Test
    void noCodeButTheWriterInsertsIntoTheOutbox() throws IOException {
        Path main = Path.of("src/main/java");
        try (Stream<Path> files = Files.walk(main)) {
            List<String> writers = files.filter(f -> f.toString().endsWith(".java"))
                    // the outbox table itself, not its archive (outbox_published) nor its leases
                    .filter(f -> java.util.regex.Pattern.compile("insert into outbox\\b")
                            .matcher(read(f).toLowerCase(Locale.ROOT).replaceAll("\\s+", " ")).find())
                    .map(f -> main.relativize(f).toString().replace('\\', '/')).toList();
            assertThat(writers).containsExactly("dev/ingestor/outbox/OutboxWriter.java");
        }
    }

    @Test
    void anItemEventAndADeadLetterEventGetTheirIdsByTheSameRule() {
        String supplier = "OUTBOX-" + UUID.randomUUID();
        UUID job = UUID.randomUUID();
        DeliveryAdvice advice = new DeliveryAdvice("O-1", 1L, "S", 1, LocalDate.of(2026, 12, 1), Map.of());
        items.apply(supplier, job, "ingestor.items", List.of(advice));
        items.apply(supplier, job, "ingestor.items", List.of(advice)); // a REPLAY: no event, its id is never used
        items.apply(supplier, job, "ingestor.items",
                List.of(new DeliveryAdvice("O-1", 2L, "S", 1, LocalDate.of(2026, 12, 1), Map.of())));
        deadLetters.write(new DeadLetterWriter.Failure(null, supplier, null, "test", "E", "m", 1), true);

        List<Map<String, Object>> rows = jdbc
                .queryForList("SELECT topic, event_id, payload::jsonb->>'event_id' AS in_payload"
                        + " FROM outbox_all ORDER BY id");
        assertThat(rows).extracting(r -> r.get("topic"))
                .containsExactly("ingestor.items", "ingestor.items", "ingestor.dead-letters");
        assertThat(rows).allSatisfy(r -> {
            UUID id = (UUID) r.get("event_id");
            assertThat(id.version()).as("random (version 4)").isEqualTo(4);
            assertThat(id.variant()).isEqualTo(2);
            assertThat(r.get("in_payload")).isEqualTo(id.toString());
        });
        assertThat(rows).extracting(r -> r.get("event_id")).doesNotHaveDuplicates();
    }

    @Test
    void eventsAreWrittenInOneStatementInTheOrderGiven() {
        List<OutboxWriter.Event> events = Stream.of("c", "a", "b")
                .map(k -> new OutboxWriter.Event(OutboxWriter.newEventId(), "k-" + k, "{\"n\":\"" + k + "\"}"))
                .toList();
        assertThat(writer.write("ingestor.test-order", events)).isEqualTo(3);
        assertThat(writer.write("ingestor.test-order", List.of())).isZero();
        assertThat(jdbc.queryForList("SELECT event_key || ' ' || event_id || ' ' || payload FROM outbox_all"
                + " WHERE topic = 'ingestor.test-order' ORDER BY id", String.class))
                .containsExactlyElementsOf(
                        events.stream().map(e -> e.key() + " " + e.eventId() + " " + e.payload()).toList());
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
