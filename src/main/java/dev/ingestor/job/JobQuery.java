package dev.ingestor.job;

import java.time.Instant;

/**
 * Filters and a page of the job list; null filters match everything. {@code receivedSince} is inclusive,
 * {@code receivedBefore} exclusive, so consecutive windows neither miss nor repeat a job.
 */
public record JobQuery(String supplier, JobState state, Instant receivedSince, Instant receivedBefore, int page, int size) {

    public static final int MAX_SIZE = 1000;

    public JobQuery {
        if (page < 0) {
            throw new IllegalArgumentException("page must be 0 or more, was " + page);
        }
        if (size < 1 || size > MAX_SIZE) {
            throw new IllegalArgumentException("size must be between 1 and " + MAX_SIZE + ", was " + size);
        }
    }

    public JobQuery(String supplier, JobState state, int page, int size) {
        this(supplier, state, null, null, page, size);
    }
}
