package dev.ingestor.intake;

/** A body longer than its source allows (HTTP: {@code ingestor.http.max-file-size}); nothing of it is kept. */
public class ContentTooLargeException extends RejectedDropException {

    private final long limit;

    public ContentTooLargeException(long limit) {
        super("the content is larger than the limit of " + limit + " bytes");
        this.limit = limit;
    }

    public long limit() {
        return limit;
    }
}
