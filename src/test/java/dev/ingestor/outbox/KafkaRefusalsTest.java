package dev.ingestor.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutionException;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

/**
 * Only what is wrong with the record itself is a refusal (a dead letter); what every event would meet alike passes,
 * and the events wait in the outbox.
 */
class KafkaRefusalsTest {

    private static Throwable asTheRelaySeesIt(Throwable kafka) {
        return new org.apache.camel.CamelExchangeException("send failed", null, new ExecutionException(kafka));
    }

    @Test
    void whatIsWrongWithTheRecordItselfIsARefusal() {
        for (Throwable record : new Throwable[] {new RecordTooLargeException("too large"),
                new InvalidRecordException("invalid"), new SerializationException("unserialisable")}) {
            assertThat(KafkaRefusals.refusal(asTheRelaySeesIt(record))).isSameAs(record);
        }
    }

    @Test
    void whatEveryEventMeetsAlikePasses() {
        // a producer's clock an hour off the broker's refuses every event's timestamp, not one event's
        for (Throwable alike : new Throwable[] {new InvalidTimestampException("timestamp out of range"),
                new TimeoutException("expired"), new TopicAuthorizationException("not authorised")}) {
            assertThat(KafkaRefusals.refusal(asTheRelaySeesIt(alike))).as(alike.toString()).isNull();
        }
    }
}
