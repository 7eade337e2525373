package dev.ingestor.job;

import java.time.Duration;

import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * {@code ingestor.pipeline.*}: the stage workers of validation and processing, their claims and batches. Each
 * stage's redelivery ({@code ingestor.pipeline.validation.redelivery.*}, {@code ...processing.redelivery.*}) is
 * {@link dev.ingestor.config.ValidationRedelivery} and {@link dev.ingestor.config.ProcessingRedelivery}.
 */
@Validated
@ConfigurationProperties(prefix = "ingestor.pipeline")
public class PipelineSettings {

    /**
     * A worker's hold on a job, renewed every third of it while the worker reads the job's records and at each batch;
     * after it runs out without renewal (the worker's instance died or lost the database), another worker takes the
     * job over. At least 3 s: a plain number is milliseconds to Spring, and a lease of 600 ms (meant as seconds)
     * would let healthy jobs be taken over until they fail as poison.
     */
    @DurationMin(seconds = 3)
    private Duration lease = Duration.ofMinutes(10);
    /**
     * Records per processing transaction (effects, outbox rows and checkpoint commit together); a file of at
     * most this many records and at most one-pass-max-size is processed by the worker that validated it.
     */
    @Positive
    private int batchSize = 1000;
    /**
     * A file of at most this size (and at most batch-size records) is validated and processed by one worker,
     * which keeps its records in memory between the two and reads it once; 0B: every file is read twice, by a
     * validation worker and by a processing worker.
     */
    private DataSize onePassMaxSize = DataSize.ofMegabytes(1);
    /**
     * Small files (each and all together at most one-pass-max-size, each at most batch-size records) a validation
     * worker takes from the front of the queue at once and validates and processes in one transaction, each with
     * its own quarantine, effects, events and counts; a group that fails is done again one file at a time. 1: one
     * file at a time.
     */
    @Positive
    private int groupSize = 50;
    /**
     * How long a group gathers: a worker that claims a small file younger than this waits until it is this old
     * before it claims the files that came after it, so that files arriving one by one still travel in groups.
     * 0: a group is what waits at the moment of the claim.
     */
    private Duration groupLinger = Duration.ofMillis(50);
    /** false: this instance only takes files in; validation and processing run elsewhere. */
    private boolean enabled = true;
    /**
     * Workers per stage on this instance, each working on its own job (a validation worker also processes the
     * small files it validated, so up to twice this many jobs may be in processing).
     */
    @Positive
    private int workers = 2;
    /**
     * Takeovers of a job whose worker stopped answering (its lease ran out) before the job counts as poison:
     * it is then FAILED with a dead letter instead of being taken over again, so a poison file cannot take down
     * worker after worker for ever.
     */
    @PositiveOrZero
    private int maxTakeovers = 3;
    /**
     * How long an idle worker waits before it looks for a claimable job again, unless a notification that a job
     * waits for its stage wakes it first (ingestor.wakeups.*): the safety net for a notification lost, and the
     * latency of a light load when the listener is off.
     */
    @DurationMin(millis = 10)
    private Duration pollInterval = Duration.ofMillis(500);

    public Duration getPollInterval() { return pollInterval; }
    public void setPollInterval(Duration pollInterval) { this.pollInterval = pollInterval; }
    public Duration getLease() { return lease; }
    public void setLease(Duration lease) { this.lease = lease; }
    public int getBatchSize() { return batchSize; }
    public void setBatchSize(int batchSize) { this.batchSize = batchSize; }
    public boolean isEnabled() { return enabled; }
    public void setEnabled(boolean enabled) { this.enabled = enabled; }
    public int getWorkers() { return workers; }
    public void setWorkers(int workers) { this.workers = workers; }
    public DataSize getOnePassMaxSize() { return onePassMaxSize; }
    public void setOnePassMaxSize(DataSize onePassMaxSize) { this.onePassMaxSize = onePassMaxSize; }
    public int getGroupSize() { return groupSize; }
    public void setGroupSize(int groupSize) { this.groupSize = groupSize; }
    public Duration getGroupLinger() { return groupLinger; }
    public void setGroupLinger(Duration groupLinger) { this.groupLinger = groupLinger; }
    public int getMaxTakeovers() { return maxTakeovers; }
    public void setMaxTakeovers(int maxTakeovers) { this.maxTakeovers = maxTakeovers; }
}
