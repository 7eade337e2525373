package dev.ingestor.config;

import java.time.Duration;

import jakarta.validation.constraints.PositiveOrZero;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * {@code ingestor.intake.redelivery.*}: Camel's redelivery of transient intake failures (a full disk, the database
 * away for a moment; routes/error-handling.camel.yaml), the wait doubled after each attempt. Here rather than in
 * the intake package because the redelivery policies (package failure) sit below it. A plain number is read as
 * milliseconds.
 *
 * @param maximumRedeliveries Redeliveries of a transient intake failure after the first attempt; then the
 *        failure is final
 * @param delay Wait before the first redelivery, doubled after each, up to {@code maximum-delay}
 * @param maximumDelay The longest wait between two redeliveries (the cap of the back-off)
 */
@Validated
@ConfigurationProperties(prefix = "ingestor.intake.redelivery")
public record IntakeRedelivery(
        @DefaultValue("5") @PositiveOrZero int maximumRedeliveries,
        @DefaultValue("1s") Duration delay,
        @DefaultValue("30s") Duration maximumDelay) {
}
