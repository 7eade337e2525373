package dev.ingestor.job;

import java.time.Instant;

/**
 * Filters and a page of the job list; null filters match everything. {@code receivedSince} is inclusive,
 * {@code receivedBefore} exclusive, so consecutive windows neither miss nor repeat a job. {@code search} finds
 * a job by what an operator has at hand: its id (the whole UUID), part of its file name, or the start of its key.
 * The page is the one after {@code after} (null: the first), or, for callers of the page numbers, page
 * {@code page} with the {@code total} of matching jobs ({@code counted}).
 */
public record JobQuery(String supplier, JobState state, Instant receivedSince, Instant receivedBefore, String search,
        int page, int size, PageCursor after, boolean counted) {

    public static final int MAX_SIZE = 1000;
    /** Longer than any key (supplier, colon, 64 hex digits) or sensible part of a file name. */
    public static final int MAX_SEARCH = 200;

    public JobQuery {
        if (page < 0) {
            throw new IllegalArgumentException("page must be 0 or more, was " + page);
        }
        if (size < 1 || size > MAX_SIZE) {
            throw new IllegalArgumentException("size must be between 1 and " + MAX_SIZE + ", was " + size);
        }
        String refusal = searchRefusal(search);
        if (refusal != null) {
            throw new IllegalArgumentException(refusal);
        }
        if (after != null && page > 0) {
            throw new IllegalArgumentException("give either after (the cursor of the page before) or page, not both");
        }
    }

    /**
     * Why {@code search} cannot be searched for, or null when it can: longer than {@link #MAX_SEARCH}, or holding a
     * NUL, which PostgreSQL's text cannot hold (the statement would fail).
     */
    public static String searchRefusal(String search) {
        if (search == null) {
            return null;
        }
        if (search.length() > MAX_SEARCH) {
            return "q must be at most " + MAX_SEARCH + " characters, was " + search.length();
        }
        return search.indexOf('\0') >= 0 ? "q must not contain a NUL character (U+0000)" : null;
    }

    public JobQuery(String supplier, JobState state, Instant receivedSince, Instant receivedBefore, String search,
            int page, int size) {
        this(supplier, state, receivedSince, receivedBefore, search, page, size, null, true);
    }

    public JobQuery(String supplier, JobState state, Instant receivedSince, Instant receivedBefore, int page,
            int size) {
        this(supplier, state, receivedSince, receivedBefore, null, page, size);
    }

    public JobQuery(String supplier, JobState state, int page, int size) {
        this(supplier, state, null, null, page, size);
    }
}
