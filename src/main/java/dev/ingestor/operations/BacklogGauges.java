package dev.ingestor.operations;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import dev.ingestor.config.KafkaSettings;
import dev.ingestor.job.JobCounts;
import dev.ingestor.job.JobState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Gauges read from the shared database, so they are the same on every instance: jobs per state
 * ({@code ingestor_jobs}, from the counts the database keeps, {@link JobCounts}: no count of the job table) and
 * the outbox's backlog and lag per topic ({@code ingestor_outbox_pending},
 * {@code ingestor_outbox_lag_seconds}). One snapshot serves every gauge for a few seconds, whatever the scrape rate,
 * and is taken off the scrape's thread.
 */
@Component
class BacklogGauges {

    private static final Logger LOG = LoggerFactory.getLogger(BacklogGauges.class);
    private static final Duration SNAPSHOT_AGE = Duration.ofSeconds(5);

    private final JdbcTemplate jdbc;
    private final JobCounts jobCounts;
    private final AtomicReference<Snapshot> snapshot = new AtomicReference<>(
            new Snapshot(0, Map.of(), Map.of(), Map.of()));
    private final MeterRegistry registry;
    /** Topics with gauges; touched by the constructor, then by the refresher's one thread. */
    private final java.util.Set<String> topics = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private final ExecutorService refresher = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "backlog-gauges");
        thread.setDaemon(true);
        return thread;
    });

    public BacklogGauges(MeterRegistry registry, JdbcTemplate jdbc, KafkaSettings kafka, JobCounts jobCounts) {
        this.jdbc = jdbc;
        this.jobCounts = jobCounts;
        for (JobState state : JobState.values()) {
            Gauge.builder("ingestor.jobs", this, m -> m.current().jobs().getOrDefault(state, 0L))
                    .description("Import jobs in each state (all instances)").tag("state", state.name())
                    .register(registry);
        }
        this.registry = registry;
        for (String topic : List.of(kafka.getItemsTopic(), kafka.getDeadLettersTopic())) {
            registerTopic(topic);
        }
        // the first snapshot, taken now: the first scrape after a start reads it, not zeros
        current();
    }

    /**
     * The outbox gauges of {@code topic}: the configured topics from the start, and any other topic once events of it
     * are seen waiting (a topic renamed while events were pending, which its relays still publish).
     */
    private void registerTopic(String topic) {
        if (!topics.add(topic)) {
            return;
        }
        Gauge.builder("ingestor.outbox.pending", this, m -> m.current().pending().getOrDefault(topic, 0L))
                .description("Events written but not yet published to Kafka").tag("topic", topic)
                .register(registry);
        Gauge.builder("ingestor.outbox.lag", this, m -> m.current().lagSeconds().getOrDefault(topic, 0.0))
                .description("Age in seconds of the oldest unpublished event").baseUnit("seconds")
                .tag("topic", topic)
                .register(registry);
    }

    /**
     * The last snapshot, at once: a gauge never waits for the database. One older than a few seconds is taken anew
     * on a thread of its own, one at a time, and the next scrape reads it. So a database that is away or hangs
     * costs a scrape nothing: its gauges keep their last values (health says the rest), where each gauge waited
     * out the pool's connection timeout and a scrape took minutes, its other metrics lost with it.
     */
    private Snapshot current() {
        Snapshot s = snapshot.get();
        boolean stale = s.takenAt() == 0 || System.nanoTime() - s.takenAt() >= SNAPSHOT_AGE.toNanos();
        if (stale && refreshing.compareAndSet(false, true)) {
            try {
                refresher.execute(this::refresh);
            } catch (RejectedExecutionException e) {
                refreshing.set(false); // stopping
            }
        }
        return s;
    }

    private void refresh() {
        try {
            Map<JobState, Long> jobs = jobCounts.byState();
            Map<String, Long> pending = new HashMap<>();
            Map<String, Double> lag = new HashMap<>();
            jdbc.query("SELECT topic, count(*), extract(epoch FROM now() - min(created_at)) FROM outbox"
                    + " GROUP BY topic", rs -> {
                        pending.put(rs.getString(1), rs.getLong(2));
                        lag.put(rs.getString(1), rs.getDouble(3));
                    });
            snapshot.set(new Snapshot(System.nanoTime(), jobs, pending, lag));
            pending.keySet().forEach(this::registerTopic);
        } catch (RuntimeException e) {
            LOG.debug("backlog gauges keep their last values: {}", e.toString());
        } finally {
            refreshing.set(false);
        }
    }

    @PreDestroy
    void stop() {
        refresher.shutdownNow();
    }

    private record Snapshot(long takenAt, Map<JobState, Long> jobs, Map<String, Long> pending,
            Map<String, Double> lagSeconds) {
    }
}
