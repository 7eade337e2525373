package dev.ingestor.outbox;

import java.time.Duration;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/** {@code ingestor.outbox.*}: the relay of outbox events to Kafka (routes/outbox-relay.camel.yaml). */
@Validated
@ConfigurationProperties(prefix = "ingestor.outbox")
public class OutboxSettings {

    /** The relay producer's linger.ms (lingerMs in routes/outbox-relay.camel.yaml). */
    static final int RELAY_LINGER_MILLIS = 5;

    /**
     * Largest event the relay sends (the producer's max.request.size; Kafka's own default). A larger one is
     * refused for good and becomes a dead letter instead of blocking the relay; the broker's own limits must be at
     * least this: the topic's max.message.bytes, and its segment.bytes when this is raised past 1MB.
     */
    private DataSize maxEventSize = DataSize.ofMegabytes(1);
    /** How long the relay waits before it looks for new events again once a topic's backlog is empty. */
    @DurationMin(millis = 10)
    private Duration pollInterval = Duration.ofMillis(200);
    /**
     * Events taken per relay transaction at most. Each round reads the index of unpublished events from its
     * start and commits once, so fewer, larger rounds keep the relay ahead of processing (docs/benchmarks.md).
     */
    @Positive
    private int batchSize = 5000;
    /**
     * Payload bytes taken per relay transaction at most (the first event of a round is always taken): what
     * bounds the relay's memory when events are large, whatever {@code batch-size} says. Keep it well under
     * the producer's buffer (32MB), which holds each event in blocks of 16KB: a round the buffer cannot take
     * waits and fails like a Kafka outage.
     */
    private DataSize batchBytes = DataSize.ofMegabytes(8);
    /**
     * The producer's wait for the cluster's metadata and for each request's answer (max.block.ms,
     * request.timeout.ms): a broker that does not answer within it counts as a failure that may pass, and the
     * batch is retried. A relay round hands its events over within it, so 0 would hand none over, ever.
     */
    @DurationMin(millis = 100)
    private Duration kafkaTimeout = Duration.ofSeconds(5);
    /**
     * The producer's delivery.timeout.ms: every event is acknowledged or failed within it. Kafka's producer
     * requires it to be at least {@code kafka-timeout} plus the relay's 5 ms of linger.
     */
    private Duration kafkaDeliveryTimeout = Duration.ofSeconds(15);
    /**
     * Relays per topic on this instance. Each takes one slice of the topic's events at a time (a lease), so the
     * relays of all instances share a topic's backlog; one key's events stay in one slice, in order.
     */
    @Positive
    private int relays = 2;
    /**
     * Dead rows (published events deleted since the last vacuum) past which an instance vacuums the outbox itself
     * between autovacuum's visits, which come at most once a minute: each relay round reads past them. 0: leave it
     * to autovacuum. Needs the database user to own table outbox (docs/operations.md).
     */
    @PositiveOrZero
    private long vacuumDeadRows = 20_000;
    /** How often an instance looks at the outbox's dead rows (PostgreSQL's statistics, one cheap query). */
    @DurationMin(millis = 10)
    private Duration vacuumCheckInterval = Duration.ofSeconds(3);

    public DataSize getMaxEventSize() { return maxEventSize; }
    public void setMaxEventSize(DataSize maxEventSize) { this.maxEventSize = maxEventSize; }
    public Duration getPollInterval() { return pollInterval; }
    public void setPollInterval(Duration pollInterval) { this.pollInterval = pollInterval; }
    public int getBatchSize() { return batchSize; }
    public void setBatchSize(int batchSize) { this.batchSize = batchSize; }
    public DataSize getBatchBytes() { return batchBytes; }
    public void setBatchBytes(DataSize batchBytes) { this.batchBytes = batchBytes; }
    public Duration getKafkaTimeout() { return kafkaTimeout; }
    public void setKafkaTimeout(Duration kafkaTimeout) { this.kafkaTimeout = kafkaTimeout; }
    public Duration getKafkaDeliveryTimeout() { return kafkaDeliveryTimeout; }
    public void setKafkaDeliveryTimeout(Duration kafkaDeliveryTimeout) {
        this.kafkaDeliveryTimeout = kafkaDeliveryTimeout;
    }
    public int getRelays() { return relays; }
    public void setRelays(int relays) { this.relays = relays; }
    public long getVacuumDeadRows() { return vacuumDeadRows; }
    public void setVacuumDeadRows(long vacuumDeadRows) { this.vacuumDeadRows = vacuumDeadRows; }
    public Duration getVacuumCheckInterval() { return vacuumCheckInterval; }
    public void setVacuumCheckInterval(Duration vacuumCheckInterval) { this.vacuumCheckInterval = vacuumCheckInterval; }

    /** Kafka's producer refuses to be made otherwise, and the relay would publish nothing. */
    @AssertTrue(message = "ingestor.outbox.kafka-delivery-timeout must be at least ingestor.outbox.kafka-timeout"
            + " plus 5ms (the relay's linger.ms): Kafka's producer refuses to be made otherwise, and no event would"
            + " be published")
    boolean isDeliveryTimeoutPastRequestTimeout() {
        return kafkaTimeout == null || kafkaDeliveryTimeout == null
                || kafkaDeliveryTimeout.compareTo(kafkaTimeout.plusMillis(RELAY_LINGER_MILLIS)) >= 0;
    }

    /**
     * How long a relay round may keep Kafka waiting for its answers: the producer answers every record within its
     * delivery timeout; the margin covers the callbacks.
     */
    public Duration answerWait() {
        return kafkaDeliveryTimeout.plus(kafkaTimeout);
    }

    /**
     * How long a relay holds the slice it took: a round starts handing a record to the producer within
     * {@code kafka-timeout} of taking the slice ({@link OutboxRelay}), the producer may block that hand-over for
     * its max.block.ms (another {@code kafka-timeout}), each record is answered within the delivery timeout, and
     * one more {@code kafka-timeout} covers the transactions around. So a relay that dies mid-round is taken over
     * only once none of its sends can still arrive, and the resends come after them on every partition.
     */
    public Duration sliceLease() {
        return kafkaDeliveryTimeout.plus(kafkaTimeout.multipliedBy(3));
    }
}
