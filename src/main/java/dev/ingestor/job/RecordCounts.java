package dev.ingestor.job;

/** Record outcomes of a job; all zero until validation and processing have run. */
public record RecordCounts(long total, long accepted, long updated, long replayed, long quarantined) {

    public static final RecordCounts NONE = new RecordCounts(0, 0, 0, 0, 0);
}
