package dev.ingestor.outbox;

import org.apache.kafka.common.InvalidRecordException;
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
 */
final class KafkaRefusals {

    private KafkaRefusals() {
    }

    /** The refusal in {@code failure}'s causes, or null when the failure may pass. */
    public static Throwable refusal(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RecordTooLargeException || t instanceof InvalidRecordException
                    || t instanceof SerializationException) {
                return t;
            }
        }
        return null;
    }
}
