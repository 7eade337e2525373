package dev.ingestor.intake;

/**
 * Input that no retry can fix: an unknown supplier, an unusable file name. Routes handle it without
 * redelivery and make the rejection visible; the message is written for the person who sent the file.
 */
public class RejectedDropException extends RuntimeException {

    private final String reason;

    public RejectedDropException(String reason) {
        super("reason=\"" + reason + "\"");
        this.reason = reason;
    }

    /** {@code where} says which file, already safe to log. */
    public RejectedDropException(String where, String reason) {
        super(where + " reason=\"" + reason + "\"");
        this.reason = reason;
    }

    /** The reason alone, for a person: what was wrong. */
    public String reason() {
        return reason;
    }
}
