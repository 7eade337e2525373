package dev.ingestor.operations;

import java.time.Duration;

import dev.ingestor.config.IntakeRedelivery;
import dev.ingestor.config.ProcessingRedelivery;
import dev.ingestor.config.RetentionSettings;
import dev.ingestor.config.ValidationRedelivery;
import dev.ingestor.intake.IntakeSettings;
import dev.ingestor.job.PipelineSettings;
import dev.ingestor.notification.NotificationSettings;
import dev.ingestor.outbox.OutboxSettings;
import org.springframework.stereotype.Component;

/**
 * The durations of the stages' settings in the milliseconds some route options take: the schedulers'
 * {@code delay} and the Kafka producer's timeouts, read by the routes as
 * {@code {{bean:routeTimings.<method>}}}. Configuration stays typed ({@code 500ms}, {@code 1s}); only here does
 * it become a number. Here because it reads the settings of every stage, which only this package may.
 */
@Component("routeTimings")
public class RouteTimings {

    private final IntakeSettings intake;
    private final IntakeRedelivery intakeRedelivery;
    private final PipelineSettings pipeline;
    private final ValidationRedelivery validationRedelivery;
    private final ProcessingRedelivery processingRedelivery;
    private final OutboxSettings outbox;
    private final NotificationSettings notifications;
    private final RetentionSettings retention;

    public RouteTimings(IntakeSettings intake, IntakeRedelivery intakeRedelivery, PipelineSettings pipeline,
            ValidationRedelivery validationRedelivery, ProcessingRedelivery processingRedelivery,
            OutboxSettings outbox, NotificationSettings notifications, RetentionSettings retention) {
        this.intake = intake;
        this.intakeRedelivery = intakeRedelivery;
        this.pipeline = pipeline;
        this.validationRedelivery = validationRedelivery;
        this.processingRedelivery = processingRedelivery;
        this.outbox = outbox;
        this.notifications = notifications;
        this.retention = retention;
    }

    public long strayScanInterval() { return millis(intake.getStrayScanInterval()); }
    public long claimRenewalInterval() { return millis(intake.getClaimRenewal()); }
    public long intakeRedeliveryDelay() { return millis(intakeRedelivery.delay()); }
    public long intakeRedeliveryMaximumDelay() { return millis(intakeRedelivery.maximumDelay()); }
    public long pipelinePollInterval() { return millis(pipeline.getPollInterval()); }
    public long validationRedeliveryDelay() { return millis(validationRedelivery.delay()); }
    public long validationRedeliveryMaximumDelay() { return millis(validationRedelivery.maximumDelay()); }
    public long processingRedeliveryDelay() { return millis(processingRedelivery.delay()); }
    public long processingRedeliveryMaximumDelay() { return millis(processingRedelivery.maximumDelay()); }
    public long outboxPollInterval() { return millis(outbox.getPollInterval()); }
    public long outboxVacuumCheckInterval() { return millis(outbox.getVacuumCheckInterval()); }
    public long notificationPollInterval() { return millis(notifications.getPollInterval()); }
    public long relayCheckInterval() { return millis(notifications.getRelayCheckInterval()); }
    public long retentionInterval() { return millis(retention.getInterval()); }
    /** Kafka reads its timeouts as int milliseconds. */
    public int kafkaTimeout() {
        return intMillis(outbox.getKafkaTimeout());
    }
    public int kafkaDeliveryTimeout() { return intMillis(outbox.getKafkaDeliveryTimeout()); }

    static long millis(Duration duration) {
        return Math.max(0, duration.toMillis());
    }

    private static int intMillis(Duration duration) {
        return (int) Math.min(Integer.MAX_VALUE, millis(duration));
    }
}
