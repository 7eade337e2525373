package dev.ingestor.failure;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.RouteTimings;
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
    public RedeliveryPolicy intakeRedeliveryPolicy(IngestorProperties properties, RouteTimings timings) {
        return backOff(properties.getIntake().getRedelivery().getMaximumRedeliveries(),
                timings.intakeRedeliveryDelay(), timings.intakeRedeliveryMaximumDelay());
    }

    /**
     * Validation and processing stages: waits without holding a thread (a stage worker's thread serves other
     * jobs meanwhile); what outlasts the policy goes to the dead-letter channel.
     */
    @Bean
    public RedeliveryPolicy pipelineRedeliveryPolicy(IngestorProperties properties, RouteTimings timings) {
        RedeliveryPolicy policy = backOff(properties.getPipeline().getRedelivery().getMaximumRedeliveries(),
                timings.pipelineRedeliveryDelay(), timings.pipelineRedeliveryMaximumDelay());
        policy.setAsyncDelayedRedelivery(true);
        return policy;
    }

    /** Exponential back-off (doubling), each attempt logged at WARN without a stack trace. */
    static RedeliveryPolicy backOff(int maximumRedeliveries, long delayMillis, long maximumDelayMillis) {
        RedeliveryPolicy policy = new RedeliveryPolicy();
        policy.setMaximumRedeliveries(maximumRedeliveries);
        policy.setRedeliveryDelay(delayMillis);
        policy.setMaximumRedeliveryDelay(maximumDelayMillis);
        policy.setUseExponentialBackOff(true);
        policy.setBackOffMultiplier(2);
        policy.setRetryAttemptedLogLevel(LoggingLevel.WARN);
        policy.setLogRetryAttempted(true);
        policy.setLogStackTrace(false);
        policy.setLogRetryStackTrace(false);
        policy.setLogExhausted(false);
        return policy;
    }
}
