package dev.ingestor.ops;

import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.job.JobState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.camel.Exchange;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Ingestor's own metrics, next to Camel's route metrics and Spring's HTTP metrics at /actuator/prometheus.
 *
 * <p>Counters count what this instance did: arrivals by supplier, source and outcome
 * ({@code ingestor_intake_total}), record outcomes ({@code ingestor_records_total}), dead letters,
 * redeliveries. Gauges read the shared database, so they are the same on every instance: jobs per state and
 * the outbox's backlog and lag per topic (refreshed at most every few seconds, whatever the scrape rate).
 */
@Component("ingestorMetrics")
public class IngestorMetrics {

    private static final Duration SNAPSHOT_AGE = Duration.ofSeconds(5);

    private final MeterRegistry registry;
    private final JdbcTemplate jdbc;
    private final AtomicReference<Snapshot> snapshot = new AtomicReference<>(new Snapshot(0, Map.of(), Map.of(), Map.of()));

    public IngestorMetrics(MeterRegistry registry, JdbcTemplate jdbc, IngestorProperties properties) {
        this.registry = registry;
        this.jdbc = jdbc;
        for (JobState state : JobState.values()) {
            Gauge.builder("ingestor.jobs", this, m -> m.current().jobs().getOrDefault(state, 0L))
                    .description("Import jobs in each state (all instances)").tag("state", state.name()).register(registry);
        }
        for (String topic : List.of(properties.getKafka().getItemsTopic(), properties.getKafka().getDeadLettersTopic())) {
            Gauge.builder("ingestor.outbox.pending", this, m -> m.current().pending().getOrDefault(topic, 0L))
                    .description("Events written but not yet published to Kafka").tag("topic", topic).register(registry);
            Gauge.builder("ingestor.outbox.lag", this, m -> m.current().lagSeconds().getOrDefault(topic, 0.0))
                    .description("Age in seconds of the oldest unpublished event").baseUnit("seconds").tag("topic", topic)
                    .register(registry);
        }
    }

    /** End of intake: one arrival of a file, by supplier, source and outcome (done, duplicate, rejected). */
    public void intake(Exchange exchange) {
        Counter.builder("ingestor.intake").description("Files taken in, by outcome")
                .tag("supplier", tag(exchange.getMessage().getHeader(IntakeHeaders.SUPPLIER, String.class)))
                .tag("source", tag(exchange.getMessage().getHeader(IntakeHeaders.SOURCE, String.class)))
                .tag("outcome", tag(exchange.getProperty(IntakeHeaders.OUTCOME, String.class)))
                .register(registry).increment();
    }

    /** Record outcomes of one committed piece of work. */
    public void records(String supplier, long accepted, long updated, long replayed, long quarantined) {
        records(supplier, "ACCEPTED", accepted);
        records(supplier, "UPDATED", updated);
        records(supplier, "REPLAY", replayed);
        records(supplier, "QUARANTINED", quarantined);
    }

    private void records(String supplier, String outcome, long count) {
        if (count > 0) {
            Counter.builder("ingestor.records").description("Records by outcome (ACCEPTED, UPDATED, REPLAY, QUARANTINED)")
                    .tag("supplier", tag(supplier)).tag("outcome", outcome).register(registry).increment(count);
        }
    }

    public void deadLetter(String stage) {
        Counter.builder("ingestor.dead.letters").description("Jobs that went to the dead-letter channel")
                .tag("stage", tag(stage)).register(registry).increment();
    }

    public void redelivery(String routeId) {
        Counter.builder("ingestor.redeliveries").description("Redelivery attempts of transient failures")
                .tag("route", tag(routeId)).register(registry).increment();
    }

    /** Times one run of a stage over one job. */
    public Timer stage(String stage, String supplier) {
        return Timer.builder("ingestor.stage").description("Time a stage takes over one job")
                .tag("stage", stage).tag("supplier", tag(supplier)).register(registry);
    }

    private Snapshot current() {
        Snapshot s = snapshot.get();
        long now = System.nanoTime();
        if (now - s.takenAt() < SNAPSHOT_AGE.toNanos() && s.takenAt() != 0) {
            return s;
        }
        try {
            Map<JobState, Long> jobs = new EnumMap<>(JobState.class);
            jdbc.query("SELECT state, count(*) FROM import_job GROUP BY state",
                    rs -> { jobs.put(JobState.valueOf(rs.getString(1)), rs.getLong(2)); });
            Map<String, Long> pending = new HashMap<>();
            Map<String, Double> lag = new HashMap<>();
            jdbc.query("SELECT topic, count(*), extract(epoch FROM now() - min(created_at)) FROM outbox"
                    + " WHERE published_at IS NULL GROUP BY topic", rs -> {
                        pending.put(rs.getString(1), rs.getLong(2));
                        lag.put(rs.getString(1), rs.getDouble(3));
                    });
            Snapshot fresh = new Snapshot(now, jobs, pending, lag);
            snapshot.set(fresh);
            return fresh;
        } catch (RuntimeException e) {
            // database unreachable: the last values stand; health says the rest
            return s;
        }
    }

    private static String tag(String value) {
        return value == null || value.isBlank() ? "unknown" : value;
    }

    private record Snapshot(long takenAt, Map<JobState, Long> jobs, Map<String, Long> pending, Map<String, Double> lagSeconds) {
    }
}
