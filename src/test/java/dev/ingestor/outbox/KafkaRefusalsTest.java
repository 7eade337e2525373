package dev.ingestor.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutionException;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
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
                new SerializationException("unserialisable")}) {
            assertThat(KafkaRefusals.refusal(asTheRelaySeesIt(record), false)).isSameAs(record);
            assertThat(KafkaRefusals.refusal(asTheRelaySeesIt(record), true)).isSameAs(record);
        }
        // the broker's word on a record sent alone
        Throwable invalid = new InvalidRecordException("invalid");
        assertThat(KafkaRefusals.refusal(asTheRelaySeesIt(invalid), true)).isSameAs(invalid);
        Throwable largerThanASegment = new RecordBatchTooLargeException("larger than the segment size");
        assertThat(KafkaRefusals.refusal(asTheRelaySeesIt(largerThanASegment), true)).isSameAs(largerThanASegment);
    }

    @Test
    void whatEveryEventMeetsAlikePasses() {
        // a producer's clock an hour off the broker's refuses every event's timestamp, not one event's
        for (Throwable alike : new Throwable[] {new InvalidTimestampException("timestamp out of range"),
                new TimeoutException("expired"), new TopicAuthorizationException("not authorised")}) {
            assertThat(KafkaRefusals.refusal(asTheRelaySeesIt(alike), false)).as(alike.toString()).isNull();
            assertThat(KafkaRefusals.refusal(asTheRelaySeesIt(alike), true)).as(alike.toString()).isNull();
        }
    }

    @Test
    void anInvalidRecordInABatchSaysNothingAboutTheRecordItself() {
        // what each record of a batch with several refused records gets, whatever the reason
        assertThat(KafkaRefusals.refusal(asTheRelaySeesIt(new InvalidRecordException("one of several")), false))
                .isNull();
        // a batch larger than a segment may be so by the others' size
        assertThat(KafkaRefusals.refusal(asTheRelaySeesIt(new RecordBatchTooLargeException("batch")), false)).isNull();
    }
}
