package dev.ingestor.outbox;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;

/**
 * Tells an event Kafka refuses for good from a failure that passes. Only errors about the record itself count as
 * refusals: sending it again can never succeed, while the events behind it would. Everything else (timeouts, a
 * leader moving, the broker gone, and also authorisation or a missing topic, which concern every event alike) is
 * treated as passing: the event waits in the outbox and is sent again, so a misconfiguration never turns the
 * whole backlog into dead letters. A timestamp the broker refuses ({@code InvalidTimestampException}) passes too: the
 * relay sets none, so the producer stamps each record with its own clock, and a refused stamp means that clock is
 * off from the broker's by more than the topic allows ({@code message.timestamp.after.max.ms}, an hour by default),
 * which every event meets alike until the clock is put right.
 * <p>
 * The broker checks a batch record by record. One record refused gets the broker's own error (a refused timestamp
 * as such); several refused in one batch each get a bare {@code InvalidRecordException}, whatever the reason, so in a
 * batch it says nothing about the record itself. It is a refusal only for an event sent alone (the relay's one-alone
 * round, under the producer's write lock); in a batch it passes, and the event's next round sends it alone to hear
 * the broker's own answer. So does a batch larger than the topic's segments ({@code segment.bytes}, which may be
 * smaller than its {@code max.message.bytes}): the producer does not split it, so in a batch it may be the others'
 * size, while a record alone that is larger is refused however often it comes.
 */
final class KafkaRefusals {

    private KafkaRefusals() {
    }

    /**
     * The refusal in {@code failure}'s causes, or null when the failure may pass; {@code alone}: the event was the
     * only record of its batch.
     */
    public static Throwable refusal(Throwable failure, boolean alone) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RecordTooLargeException || t instanceof SerializationException
                    || alone && (t instanceof InvalidRecordException || t instanceof RecordBatchTooLargeException)) {
                return t;
            }
        }
        return null;
    }
}
