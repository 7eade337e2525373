package dev.ingestor.failure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.RouteTimings;
import org.apache.camel.LoggingLevel;
import org.apache.camel.processor.errorhandler.RedeliveryPolicy;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;

/**
 * Each pipeline stage's redelivery policy bean is built from that stage's properties (application.yaml's
 * defaults with an operator's settings on top), not from the other stage's.
 */
@Timeout(30)
class RedeliveryPoliciesTest {

    private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

    @BeforeAll
    static void loadApplicationYaml() throws Exception {
        for (PropertySource<?> source : new YamlPropertySourceLoader().load("application", new ClassPathResource("application.yaml"))) {
            EnumerablePropertySource<?> yaml = (EnumerablePropertySource<?>) source;
            for (String name : yaml.getPropertyNames()) {
                if (name.startsWith("ingestor.") && !name.startsWith("ingestor.embedded.")) {
                    DEFAULTS.put(name, String.valueOf(yaml.getProperty(name)));
                }
            }
        }
    }

    private final RedeliveryPolicies policies = new RedeliveryPolicies();

    @Test
    void byDefaultValidationTriesThreeTimesSixtySecondsApartAndProcessingThreeTimesTwoMinutesApart() {
        IngestorProperties properties = bind(Map.of());
        RouteTimings timings = new RouteTimings(properties);

        RedeliveryPolicy validation = policies.validationRedeliveryPolicy(properties, timings);
        assertThat(validation.getMaximumRedeliveries()).isEqualTo(2);
        assertFixed(validation, 60_000);

        RedeliveryPolicy processing = policies.processingRedeliveryPolicy(properties, timings);
        assertThat(processing.getMaximumRedeliveries()).isEqualTo(2);
        assertFixed(processing, 120_000);
    }

    @Test
    void eachStageTakesOnlyItsOwnSettings() {
        IngestorProperties properties = bind(Map.of(
                "ingestor.pipeline.validation.redelivery.maximum-redeliveries", "5",
                "ingestor.pipeline.validation.redelivery.delay", "10s",
                "ingestor.pipeline.processing.redelivery.maximum-redeliveries", "1",
                "ingestor.pipeline.processing.redelivery.delay", "30s",
                "ingestor.pipeline.processing.redelivery.maximum-delay", "4m",
                "ingestor.pipeline.processing.redelivery.backoff-multiplier", "2"));
        RouteTimings timings = new RouteTimings(properties);

        RedeliveryPolicy validation = policies.validationRedeliveryPolicy(properties, timings);
        assertThat(validation.getMaximumRedeliveries()).isEqualTo(5);
        assertThat(validation.getRedeliveryDelay()).isEqualTo(10_000);
        assertThat(validation.isUseExponentialBackOff()).isFalse();

        RedeliveryPolicy processing = policies.processingRedeliveryPolicy(properties, timings);
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
        IngestorProperties properties = bind(Map.of(
                "ingestor.pipeline.redelivery.maximum-redeliveries", "7",
                "ingestor.pipeline.redelivery.delay", "500ms",
                "ingestor.pipeline.redelivery.maximum-delay", "4s"));
        RouteTimings timings = new RouteTimings(properties);
        for (RedeliveryPolicy policy : new RedeliveryPolicy[] {
                policies.validationRedeliveryPolicy(properties, timings), policies.processingRedeliveryPolicy(properties, timings)}) {
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
        assertThat(policy.calculateRedeliveryDelay(first, 2)).as("the second wait, as long as the first").isEqualTo(delayMillis);
        assertStagePolicy(policy);
    }

    /** What every stage policy keeps: waits without a thread, each attempt at WARN, the exhaustion left to the dead letter. */
    private static void assertStagePolicy(RedeliveryPolicy policy) {
        assertThat(policy.isAsyncDelayedRedelivery()).isTrue();
        assertThat(policy.getRetryAttemptedLogLevel()).isEqualTo(LoggingLevel.WARN);
        assertThat(policy.isLogExhausted()).isFalse();
    }

    private static IngestorProperties bind(Map<String, String> overrides) {
        Map<String, String> values = new LinkedHashMap<>(DEFAULTS);
        values.putAll(overrides);
        return new Binder(new MapConfigurationPropertySource(values)).bind("ingestor", IngestorProperties.class).get();
    }
}
