package dev.ingestor.config;

import java.time.Duration;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Positive;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.annotation.Validated;

/**
 * {@code ingestor.retention.*}: housekeeping (routes/housekeeping.camel.yaml). Read by housekeeping, by the
 * notifications' own retention and by the answers to repeated pushes, so it sits here.
 */
@Validated
@ConfigurationProperties(prefix = "ingestor.retention")
public class RetentionSettings {

    /** How often retention and recovery run (recovery also runs at start). */
    @DurationMin(seconds = 1)
    private Duration interval = Duration.ofHours(1);
    /**
     * Rows per DELETE statement, so no statement holds its locks for long. At most 2,000: a batch of jobs holds a lock
     * per content key in PostgreSQL's shared lock table (max_locks_per_transaction x max_connections, 6,400 slots by
     * default), where intake needs room for its own.
     */
    @Positive
    @Max(2000)
    private int batchSize = 1000;
    /**
     * Finished jobs (with their records, dead letters, content keys and raw files) older than this go; 0 keeps
     * them for ever.
     */
    private Duration jobMaxAge = Duration.ofDays(365);
    /**
     * Published (and refused) outbox events are kept in the archive, outbox_published, for this long; 0 keeps no
     * archive: an event is deleted when it is published.
     */
    private Duration outboxMaxAge = Duration.ofDays(7);
    /**
     * Records of files refused or failed at intake (the admin list) older than this are no longer listed; the files
     * themselves stay where they are, and a dropped file that failed and was never retried keeps its row (its retry
     * needs it). 0 keeps them for ever.
     */
    private Duration intakeFailures = Duration.ofDays(90);
    /**
     * An item's versions (its history, item_version) recorded longer ago than this go, except its current version,
     * which stays however old it is: the history then starts with the oldest version younger than this. 0 keeps
     * every version for ever.
     */
    private Duration itemVersions = Duration.ofDays(365);

    public Duration getInterval() { return interval; }
    public void setInterval(Duration interval) { this.interval = interval; }
    public int getBatchSize() { return batchSize; }
    public void setBatchSize(int batchSize) { this.batchSize = batchSize; }
    public Duration getJobMaxAge() { return jobMaxAge; }
    public void setJobMaxAge(Duration jobMaxAge) { this.jobMaxAge = jobMaxAge; }
    public Duration getOutboxMaxAge() { return outboxMaxAge; }
    public void setOutboxMaxAge(Duration outboxMaxAge) { this.outboxMaxAge = outboxMaxAge; }
    public Duration getIntakeFailures() { return intakeFailures; }
    public void setIntakeFailures(Duration intakeFailures) { this.intakeFailures = intakeFailures; }
    public Duration getItemVersions() { return itemVersions; }
    public void setItemVersions(Duration itemVersions) { this.itemVersions = itemVersions; }
}
