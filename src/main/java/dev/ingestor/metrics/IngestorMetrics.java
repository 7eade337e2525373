package dev.ingestor.metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.springframework.stereotype.Component;

/**
 * Ingestor's own counters, next to Camel's route metrics and Spring's HTTP metrics at /actuator/prometheus.
 *
 * <p>They count what this instance did: arrivals by supplier, source and outcome ({@code ingestor_intake_total}),
 * record outcomes ({@code ingestor_records_total}), dead letters, redeliveries, and the time a stage takes. The
 * gauges that read the shared database (jobs per state, the outbox's backlog) are the operations package's
 * {@code BacklogGauges}: every stage counts here, and none of them needs to know about the gauges.
 */
@Component("ingestorMetrics")
public class IngestorMetrics {

    private final MeterRegistry registry;
    /** 1 while the supplier's SFTP server answered its last poll, 0 after a failed one. */
    private final Map<String, AtomicInteger> sftpUp = new ConcurrentHashMap<>();
    /** 1 while this instance holds the lease on the supplier's SFTP route (and so polls it), else 0. */
    private final Map<String, AtomicInteger> sftpLeader = new ConcurrentHashMap<>();
    /**
     * The meters counted per file, job and record, by name and tags: a builder registers afresh on every call (tags
     * sorted, an id hashed, the registry's checks), which costs about 4% of a push's request threads.
     */
    private final Map<String, Meter> meters = new ConcurrentHashMap<>();

    public IngestorMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * End of intake: one arrival of a file, by supplier, source and outcome (done, duplicate, rejected, or failed
     * when a transient failure outlasted the redelivery policy). The supplier is null for an arrival that reached
     * no supplier, e.g. a stray file in no supplier's folder.
     */
    public void intake(String supplier, String source, String outcome) {
        intakeCounter(supplier, source, outcome).increment();
    }

    /**
     * Exports the count of arrivals of {@code supplier} from {@code source} with {@code outcome} at 0 before any is
     * counted: a series that appears with its first count, at 1, shows Prometheus no increase (increase() has no
     * sample before it), so the alert on failed and rejected files would miss the first one after a start.
     */
    public void intakeFromZero(String supplier, String source, String outcome) {
        intakeCounter(supplier, source, outcome);
    }

    private Counter intakeCounter(String supplier, String source, String outcome) {
        String s = tag(supplier);
        String from = tag(source);
        String o = tag(outcome);
        return (Counter) meters.computeIfAbsent(key("intake", s, from, o), k -> Counter.builder("ingestor.intake")
                .description("Files taken in, by outcome").tag("supplier", s).tag("source", from).tag("outcome", o)
                .register(registry));
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
            String s = tag(supplier);
            ((Counter) meters.computeIfAbsent(key("records", s, outcome), k -> Counter.builder("ingestor.records")
                    .description("Records by outcome (ACCEPTED, UPDATED, REPLAY, QUARANTINED)")
                    .tag("supplier", s).tag("outcome", outcome).register(registry))).increment(count);
        }
    }

    public void deadLetter(String stage) {
        deadLetters(stage).increment();
    }

    /** Exports the count of {@code stage}'s dead letters at 0 before any is counted, as {@link #intakeFromZero}. */
    public void deadLettersFromZero(String stage) {
        deadLetters(stage);
    }

    private Counter deadLetters(String stage) {
        return Counter.builder("ingestor.dead.letters").description("Jobs that went to the dead-letter channel")
                .tag("stage", tag(stage)).register(registry);
    }

    /** A group of small files, by outcome: completed together, or done again one file at a time. */
    public void group(String outcome, int files) {
        ((Counter) meters.computeIfAbsent(key("groups", outcome), k -> Counter.builder("ingestor.pipeline.groups")
                .description("Groups of small files validated and processed together, by outcome (completed, or alone:"
                        + " done again one file at a time)")
                .tag("outcome", outcome).register(registry))).increment();
        ((Counter) meters.computeIfAbsent(key("group-files", outcome),
                k -> Counter.builder("ingestor.pipeline.group.files")
                        .description("Files in groups of small files, by the group's outcome").tag("outcome", outcome)
                        .register(registry)))
                .increment(files);
    }

    public void redelivery(String routeId) {
        Counter.builder("ingestor.redeliveries").description("Redelivery attempts of transient failures")
                .tag("route", tag(routeId)).register(registry).increment();
    }

    /** One attempt to send a webhook notification: delivered, retried (a later attempt follows) or gave_up. */
    public void notification(String type, String outcome) {
        notifications(type, outcome).increment();
    }

    /** {@code count} notifications of {@code type} with {@code outcome} at once. */
    public void notifications(String type, String outcome, long count) {
        notifications(type, outcome).increment(count);
    }

    /**
     * Exports the count of {@code type} and {@code outcome} at 0 before anything is counted: a series that appears
     * with its first count, at 1, shows Prometheus no increase (increase() has no sample before it), so the first
     * notification given up after a start would not fire the alert on notifications given up.
     */
    public void notificationsFromZero(String type, String outcome) {
        notifications(type, outcome);
    }

    private Counter notifications(String type, String outcome) {
        return Counter.builder("ingestor.notifications")
                .description("Webhook notification attempts by type and outcome")
                .tag("type", tag(type)).tag("outcome", tag(outcome)).register(registry);
    }

    /** The outcome of the last poll of a supplier's SFTP server ({@code ingestor_sftp_up}, 1 up, 0 down). */
    public synchronized void sftpUp(String supplier, boolean up) {
        sftpUp.computeIfAbsent(tag(supplier), code -> {
            AtomicInteger value = new AtomicInteger(1);
            Gauge.builder("ingestor.sftp.up", value, AtomicInteger::get)
                    .description("1 while the supplier's SFTP server answered its last poll, 0 after a failed one")
                    .tag("supplier", code).register(registry);
            return value;
        }).set(up ? 1 : 0);
    }

    /**
     * This instance no longer polls the supplier's SFTP server (another holds the route's lease): its
     * {@code ingestor_sftp_up} goes until it polls again, so the last poll it made before it lost the lease (a failed
     * one, when a network fault cut it off from the server and the database alike) does not hold the SftpDown alert
     * on while the instance that took over polls the server well.
     */
    public synchronized void sftpNotPolledHere(String supplier) {
        AtomicInteger removed = sftpUp.remove(tag(supplier));
        if (removed != null) {
            registry.find("ingestor.sftp.up").tag("supplier", tag(supplier)).meters().forEach(registry::remove);
        }
    }

    /**
     * Whether this instance leads the supplier's SFTP route: holds its lease and so is the one instance that polls
     * the supplier's server. Summed over the instances it is 1 while someone polls, 0 during a takeover.
     */
    public void sftpLeader(String supplier, boolean leader) {
        sftpLeader.computeIfAbsent(tag(supplier), code -> {
            AtomicInteger value = new AtomicInteger();
            Gauge.builder("ingestor.sftp.leader", value, AtomicInteger::get)
                    .description("1 while this instance holds the lease on the supplier's SFTP route and polls it")
                    .tag("supplier", code).register(registry);
            return value;
        }).set(leader ? 1 : 0);
    }

    /** Times one run of a stage over one job. */
    public Timer stage(String stage, String supplier) {
        String s = tag(supplier);
        return (Timer) meters.computeIfAbsent(key("stage", stage, s), k -> Timer.builder("ingestor.stage")
                .description("Time a stage takes over one job").tag("stage", stage).tag("supplier", s)
                .register(registry));
    }

    /** A meter's name and tag values as one map key, joined by NUL (no supplier code, source or outcome holds one). */
    private static String key(String... parts) {
        return String.join("\u0000", parts);
    }

    private static String tag(String value) {
        return value == null || value.isBlank() ? "unknown" : value;
    }

}
