package dev.ingestor.failure;

import java.time.Duration;

import dev.ingestor.config.IntakeRedelivery;
import dev.ingestor.config.ProcessingRedelivery;
import dev.ingestor.config.StageRedelivery;
import dev.ingestor.config.ValidationRedelivery;
import org.apache.camel.LoggingLevel;
import org.apache.camel.processor.errorhandler.RedeliveryPolicy;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The redelivery policies that routes/error-handling.camel.yaml names with {@code redeliveryPolicyRef}. They are
 * beans rather than inline {@code redeliveryPolicy} blocks because their number of redeliveries comes from
 * configuration, and Camel's YAML DSL schema (what Kaoto and the editors check routes with) takes only a
 * literal number there, no property placeholder.
 */
@Configuration(proxyBeanMethods = false)
public class RedeliveryPolicies {

    /** File sources: the exhausted failure is logged by the route configuration with supplier and file. */
    @Bean
    public RedeliveryPolicy intakeRedeliveryPolicy(IntakeRedelivery redelivery) {
        return backOff(redelivery.maximumRedeliveries(), millis(redelivery.delay()), millis(redelivery.maximumDelay()),
                2);
    }

    /** The validation stage (route configuration validation-redelivery): ingestor.pipeline.validation.redelivery.*. */
    @Bean
    public RedeliveryPolicy validationRedeliveryPolicy(ValidationRedelivery redelivery) {
        return stage(redelivery);
    }

    /** The processing stage (route configuration processing-redelivery): ingestor.pipeline.processing.redelivery.*. */
    @Bean
    public RedeliveryPolicy processingRedeliveryPolicy(ProcessingRedelivery redelivery) {
        return stage(redelivery);
    }

    /**
     * A pipeline stage waits without holding a thread (a stage worker's thread serves other jobs meanwhile);
     * what outlasts the policy goes to the dead-letter channel.
     */
    static RedeliveryPolicy stage(StageRedelivery redelivery) {
        RedeliveryPolicy policy = backOff(redelivery.maximumRedeliveries(), millis(redelivery.delay()),
                millis(redelivery.maximumDelay()), redelivery.backoffMultiplier());
        policy.setAsyncDelayedRedelivery(true);
        return policy;
    }

    /** Camel takes its delays in milliseconds; configuration stays typed ({@code 500ms}, {@code 1s}). */
    static long millis(Duration duration) {
        return Math.max(0, duration.toMillis());
    }

    /**
     * Waits of {@code delayMillis}, multiplied by {@code multiplier} after each attempt up to
     * {@code maximumDelayMillis} (1: a fixed delay), each attempt logged at WARN without a stack trace.
     */
    static RedeliveryPolicy backOff(int maximumRedeliveries, long delayMillis, long maximumDelayMillis,
            double multiplier) {
        RedeliveryPolicy policy = new RedeliveryPolicy();
        policy.setMaximumRedeliveries(maximumRedeliveries);
        policy.setRedeliveryDelay(delayMillis);
        policy.setMaximumRedeliveryDelay(maximumDelayMillis);
        policy.setUseExponentialBackOff(multiplier > 1);
        policy.setBackOffMultiplier(multiplier);
        policy.setRetryAttemptedLogLevel(LoggingLevel.WARN);
        policy.setLogRetryAttempted(true);
        policy.setLogStackTrace(false);
        policy.setLogRetryStackTrace(false);
        policy.setLogExhausted(false);
        return policy;
    }
}
