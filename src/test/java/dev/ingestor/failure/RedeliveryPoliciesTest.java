package dev.ingestor.failure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import dev.ingestor.config.ProcessingRedelivery;
import dev.ingestor.config.ValidationRedelivery;
import dev.ingestor.support.BoundSettings;
import org.apache.camel.LoggingLevel;
import org.apache.camel.processor.errorhandler.RedeliveryPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Each pipeline stage's redelivery policy bean is built from that stage's properties (the defaults of its
 * settings class with an operator's settings on top), not from the other stage's.
 */
@Timeout(30)
class RedeliveryPoliciesTest {

    private final RedeliveryPolicies policies = new RedeliveryPolicies();

    @Test
    void byDefaultValidationTriesThreeTimesSixtySecondsApartAndProcessingThreeTimesTwoMinutesApart() {
        Map<String, String> properties = Map.of();

        RedeliveryPolicy validation = validation(properties);
        assertThat(validation.getMaximumRedeliveries()).isEqualTo(2);
        assertFixed(validation, 60_000);

        RedeliveryPolicy processing = processing(properties);
        assertThat(processing.getMaximumRedeliveries()).isEqualTo(2);
        assertFixed(processing, 120_000);
    }

    @Test
    void eachStageTakesOnlyItsOwnSettings() {
        Map<String, String> properties = Map.of(
                "ingestor.pipeline.validation.redelivery.maximum-redeliveries", "5",
                "ingestor.pipeline.validation.redelivery.delay", "10s",
                "ingestor.pipeline.processing.redelivery.maximum-redeliveries", "1",
                "ingestor.pipeline.processing.redelivery.delay", "30s",
                "ingestor.pipeline.processing.redelivery.maximum-delay", "4m",
                "ingestor.pipeline.processing.redelivery.backoff-multiplier", "2");

        RedeliveryPolicy validation = validation(properties);
        assertThat(validation.getMaximumRedeliveries()).isEqualTo(5);
        assertThat(validation.getRedeliveryDelay()).isEqualTo(10_000);
        assertThat(validation.isUseExponentialBackOff()).isFalse();

        RedeliveryPolicy processing = processing(properties);
        assertThat(processing.getMaximumRedeliveries()).isEqualTo(1);
        assertThat(processing.getRedeliveryDelay()).isEqualTo(30_000);
        assertThat(processing.getMaximumRedeliveryDelay()).isEqualTo(240_000);
        assertThat(processing.isUseExponentialBackOff()).isTrue();
        assertThat(processing.getBackOffMultiplier()).isEqualTo(2.0);
        // the waits Camel computes: 30 s, then 60 s
        long first = processing.calculateRedeliveryDelay(0, 1);
        assertThat(first).isEqualTo(30_000);
        assertThat(processing.calculateRedeliveryDelay(first, 2)).isEqualTo(60_000);
        assertStagePolicy(processing);
    }

    @Test
    void theFormerSharedSettingsStillApplyToBothStagesWithTheirDoubling() {
        Map<String, String> properties = Map.of(
                "ingestor.pipeline.redelivery.maximum-redeliveries", "7",
                "ingestor.pipeline.redelivery.delay", "500ms",
                "ingestor.pipeline.redelivery.maximum-delay", "4s");
        for (RedeliveryPolicy policy : new RedeliveryPolicy[] {validation(properties), processing(properties)}) {
            assertThat(policy.getMaximumRedeliveries()).isEqualTo(7);
            assertThat(policy.getRedeliveryDelay()).isEqualTo(500);
            assertThat(policy.getMaximumRedeliveryDelay()).isEqualTo(4000);
            assertThat(policy.isUseExponentialBackOff()).isTrue();
            assertThat(policy.getBackOffMultiplier()).isEqualTo(2.0);
        }
    }

    private static void assertFixed(RedeliveryPolicy policy, long delayMillis) {
        assertThat(policy.getRedeliveryDelay()).isEqualTo(delayMillis);
        assertThat(policy.isUseExponentialBackOff()).isFalse();
        long first = policy.calculateRedeliveryDelay(0, 1);
        assertThat(first).isEqualTo(delayMillis);
        assertThat(policy.calculateRedeliveryDelay(first, 2)).as("the second wait, as long as the first")
                .isEqualTo(delayMillis);
        assertStagePolicy(policy);
    }

    /**
     * What every stage policy keeps: waits without a thread, each attempt at WARN, the exhaustion left to the dead
     * letter.
     */
    private static void assertStagePolicy(RedeliveryPolicy policy) {
        assertThat(policy.isAsyncDelayedRedelivery()).isTrue();
        assertThat(policy.getRetryAttemptedLogLevel()).isEqualTo(LoggingLevel.WARN);
        assertThat(policy.isLogExhausted()).isFalse();
    }

    private RedeliveryPolicy validation(Map<String, String> properties) {
        return policies.validationRedeliveryPolicy(BoundSettings.bind(ValidationRedelivery.class, properties));
    }

    private RedeliveryPolicy processing(Map<String, String> properties) {
        return policies.processingRedeliveryPolicy(BoundSettings.bind(ProcessingRedelivery.class, properties));
    }
}
