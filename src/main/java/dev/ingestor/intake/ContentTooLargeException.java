package dev.ingestor.intake;

/**
 * A body longer than its source allows ({@code ingestor.http.max-file-size}, {@code
 * ingestor.suppliers.<CODE>.max-file-size}
 * or {@code ingestor.intake.max-file-size}); nothing of it is kept.
 */
public class ContentTooLargeException extends RejectedDropException {

    private final long limit;
    private final String property;

    public ContentTooLargeException(long limit) {
        this(limit, null);
    }

    /** {@code property}: the setting that made the limit, or null when unknown. */
    public ContentTooLargeException(long limit, String property) {
        super("the content is larger than the limit of " + limit + " bytes"
                + (property == null ? "" : " (" + property + ")"));
        this.limit = limit;
        this.property = property;
    }

    public long limit() {
        return limit;
    }

    /** The setting that made the limit; HTTP pushes without a supplier limit name their own. */
    public String property() {
        return property == null ? "ingestor.http.max-file-size" : property;
    }
}
