package dev.ingestor.job;

/** Filters and a page of the job list; null filters match everything. */
public record JobQuery(String supplier, JobState state, int page, int size) {

    public static final int MAX_SIZE = 1000;

    public JobQuery {
        if (page < 0) {
            throw new IllegalArgumentException("page must be 0 or more, was " + page);
        }
        if (size < 1 || size > MAX_SIZE) {
            throw new IllegalArgumentException("size must be between 1 and " + MAX_SIZE + ", was " + size);
        }
    }
}
