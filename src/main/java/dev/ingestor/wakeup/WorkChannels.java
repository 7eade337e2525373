package dev.ingestor.wakeup;

import java.util.List;

/**
 * The PostgreSQL channels on which the database tells that work was committed (db/migration V19 notifies them).
 * A route woken by a channel names it in its {@link WakeOnNotice} scheduler.
 */
public final class WorkChannels {

    /** A job waits for validation (RECEIVED, no lease owner); no payload. */
    public static final String VALIDATION = "ingestor_validation";
    /** A job waits for processing (PROCESSING, no lease owner); no payload. */
    public static final String PROCESSING = "ingestor_processing";
    /** Events were written to the outbox; the payload is their topic. */
    public static final String OUTBOX = "ingestor_outbox";

    /** Every channel the listener LISTENs on. */
    public static final List<String> ALL = List.of(VALIDATION, PROCESSING, OUTBOX);

    private WorkChannels() {
    }
}
