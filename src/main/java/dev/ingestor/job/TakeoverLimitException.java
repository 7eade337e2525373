package dev.ingestor.job;

/**
 * A job whose worker stopped answering more often than ingestor.pipeline.max-takeovers allows: most likely the
 * job itself brings its workers down (a poison file), so it is FAILED instead of being taken over again.
 */
public class TakeoverLimitException extends RuntimeException {

    public TakeoverLimitException(String stage, int takeovers, int limit) {
        super("the job was taken over " + takeovers + " times from a " + stage + " worker that stopped without"
                + " finishing (its lease ran out); ingestor.pipeline.max-takeovers=" + limit
                + " allows no more, so it is not taken over again");
    }
}
