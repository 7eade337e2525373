package dev.ingestor.config;

import java.time.Duration;

import org.springframework.stereotype.Component;

/**
 * The durations of {@link IngestorProperties} in the milliseconds some route options take: the scheduler's
 * {@code delay} and the Kafka producer's timeouts, read by the routes as {@code {{bean:routeTimings.<method>}}},
 * and the redelivery delays, read by the redelivery policies of the {@code failure} package. Configuration stays typed ({@code 500ms},
 * {@code 1s}); only here does it become a number.
 */
@Component("routeTimings")
public class RouteTimings {

    private final IngestorProperties properties;

    public RouteTimings(IngestorProperties properties) {
        this.properties = properties;
    }

    public long intakeRedeliveryDelay() { return millis(properties.getIntake().getRedelivery().getDelay()); }
    public long intakeRedeliveryMaximumDelay() { return millis(properties.getIntake().getRedelivery().getMaximumDelay()); }
    public long pipelinePollInterval() { return millis(properties.getPipeline().getPollInterval()); }
    public long validationRedeliveryDelay() { return millis(properties.getPipeline().validationRedelivery().getDelay()); }
    public long validationRedeliveryMaximumDelay() { return millis(properties.getPipeline().validationRedelivery().getMaximumDelay()); }
    public long processingRedeliveryDelay() { return millis(properties.getPipeline().processingRedelivery().getDelay()); }
    public long processingRedeliveryMaximumDelay() { return millis(properties.getPipeline().processingRedelivery().getMaximumDelay()); }
    public long outboxPollInterval() { return millis(properties.getOutbox().getPollInterval()); }
    public long notificationPollInterval() { return millis(properties.getNotifications().getPollInterval()); }
    public long relayCheckInterval() { return millis(properties.getNotifications().getRelayCheckInterval()); }
    /** Kafka reads its timeouts as int milliseconds. */
    public int kafkaTimeout() { return intMillis(properties.getOutbox().getKafkaTimeout()); }
    public int kafkaDeliveryTimeout() { return intMillis(properties.getOutbox().getKafkaDeliveryTimeout()); }

    private static long millis(Duration duration) {
        return Math.max(0, duration.toMillis());
    }

    private static int intMillis(Duration duration) {
        return (int) Math.min(Integer.MAX_VALUE, millis(duration));
    }
}
