package dev.ingestor.config;

import java.time.Duration;

import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.PositiveOrZero;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code ingestor.pipeline.validation.redelivery.*}: the validation stage's redelivery of transient failures
 * (docs/design.md, Transient and final failures). Here rather than in the validation package because the
 * redelivery policies (package failure) sit below it. A plain number is read as milliseconds.
 *
 * @param maximumRedeliveries Redeliveries of a transient validation failure after the first attempt (2: 3 tries
 *        in all); then the job goes to the dead-letter channel
 * @param delay Wait before each validation redelivery (the first, when the wait grows)
 * @param maximumDelay The longest wait between two redeliveries, when the wait grows
 * @param backoffMultiplier Each wait times this is the next: 1 keeps the delay fixed, 2 doubles it
 */
@Validated
@ConfigurationProperties(prefix = "ingestor.pipeline.validation.redelivery")
public record ValidationRedelivery(
        @DefaultValue("2") @PositiveOrZero int maximumRedeliveries,
        @DefaultValue("60s") Duration delay,
        @DefaultValue("60s") Duration maximumDelay,
        @DefaultValue("1") @DecimalMin(value = "1", message = StageRedelivery.MULTIPLIER_AT_LEAST_ONE) double backoffMultiplier)
        implements
            StageRedelivery {
}
