package dev.ingestor.intake;

/**
 * Input that no retry can fix: an unknown supplier, an unusable file name. Routes handle it without
 * redelivery and make the rejection visible; the message is written for the person who sent the file.
 */
public class RejectedDropException extends RuntimeException {

    public RejectedDropException(String reason) {
        super(reason);
    }
}
