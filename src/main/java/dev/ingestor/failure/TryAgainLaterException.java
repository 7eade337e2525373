package dev.ingestor.failure;

/**
 * A failure of the product's own making that passes with time, such as a route that is being reloaded: tried again
 * as a lost connection is ({@link TransientFailures}), never taken for something wrong with the file or the request.
 * Its message says what is waited for.
 */
public abstract class TryAgainLaterException extends RuntimeException {

    protected TryAgainLaterException(String message) {
        super(message);
    }

    protected TryAgainLaterException(String message, Throwable cause) {
        super(message, cause);
    }
}
