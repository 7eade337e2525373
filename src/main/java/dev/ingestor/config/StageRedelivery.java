package dev.ingestor.config;

import java.time.Duration;

/**
 * Camel's redelivery policy for the transient failures of one pipeline stage (routes/error-handling.camel.yaml):
 * fixed delays unless {@code backoff-multiplier} is above 1. {@link ValidationRedelivery} and
 * {@link ProcessingRedelivery} are its two settings, each with its stage's defaults.
 */
public interface StageRedelivery {

    /** Redeliveries after the first attempt; then the job goes to the dead-letter channel. */
    int maximumRedeliveries();

    /** Wait before the first redelivery. */
    Duration delay();

    /** The longest wait between two redeliveries. */
    Duration maximumDelay();

    /** What each wait is multiplied by for the next one: 1 keeps the delay fixed, 2 doubles it. */
    double backoffMultiplier();

    /** Below 1 each wait would shrink towards nothing: a retry storm against whatever just failed. */
    String MULTIPLIER_AT_LEAST_ONE = "backoff-multiplier must be at least 1 (1: a fixed delay)";
}
