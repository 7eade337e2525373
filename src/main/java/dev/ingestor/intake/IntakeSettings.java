package dev.ingestor.intake;

import java.time.Duration;

import jakarta.validation.constraints.Positive;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * {@code ingestor.intake.*}: how files are taken in, by any source. The redelivery of intake's transient failures
 * ({@code ingestor.intake.redelivery.*}) is {@link dev.ingestor.config.IntakeRedelivery}, read by the redelivery
 * policies below this package.
 */
@Validated
@ConfigurationProperties(prefix = "ingestor.intake")
public class IntakeSettings {

    /**
     * How long a claim on an inbox or SFTP file holds without being renewed; the instance that holds it renews it every
     * third of this, so only the claims of an instance that is gone (or cut off from the database) lapse, and another
     * instance takes the file over. At least 3 s.
     */
    @DurationMin(seconds = 3)
    private Duration claimLease = Duration.ofMinutes(10);
    /**
     * Whether raw files, and the folder entry of their rename, are forced to disk before their job commits
     * (survives power loss).
     */
    private boolean fsync = true;
    /** How often files outside any supplier folder (the inbox root, unknown supplier folders) are answered. */
    @DurationMin(millis = 10)
    private Duration strayScanInterval = Duration.ofSeconds(30);
    /**
     * How long an instance leaves a file in a folder that is no configured supplier before it answers it (moves it
     * to .rejected/), counted from when it first saw the file there. During a rolling deploy that adds a supplier, the
     * instances still on the old configuration see its folder as unknown: they leave its files this long to the
     * instances that know it. Files at the inbox root are answered once they have settled (2 s).
     */
    private Duration unknownFolderGrace = Duration.ofMinutes(15);
    /**
     * The largest file a supplier may send by any source (file drop, SFTP, HTTP); a larger one is rejected naming
     * this property (413 over HTTP), never stored. Per supplier: {@code ingestor.suppliers.<CODE>.max-file-size}.
     */
    private DataSize maxFileSize = DataSize.ofMegabytes(100);
    /**
     * The largest record of a file from any source, in characters of its text (a CSV line with its quoted line
     * breaks, a JSON object, a JSON line): checked while the file is read, a larger record is quarantined naming
     * this limit, keeping its first 1,000 characters and its size, and the file goes on. Per supplier:
     * {@code ingestor.suppliers.<CODE>.max-record-size}.
     */
    private DataSize maxRecordSize = DataSize.ofKilobytes(64);
    /**
     * Most fields one record of a file may have (CSV columns, a JSON object's top-level fields): checked while the
     * file is read, a record with more is quarantined naming this limit (a header with more columns rejects the
     * file). Per supplier: {@code ingestor.suppliers.<CODE>.max-fields-per-record}.
     */
    @Positive
    private int maxFieldsPerRecord = 1000;
    /**
     * Refused HTTP pushes (nothing kept) of one supplier, source, outcome and reason within one window of this
     * length are one intake_failure row with a count, so a client looping on a refused file does not fill the list.
     * 0: one row per arrival.
     */
    private Duration failureCoalesceWindow = Duration.ofMinutes(1);
    /**
     * The most files one poll of a supplier's folder (file drop or SFTP) takes; the rest wait for the next poll.
     * A folder of a million files is then claimed and queued a thousand files at a time, never all at once.
     */
    @Positive
    private int maxFilesPerPoll = 1000;

    public int getMaxFilesPerPoll() { return maxFilesPerPoll; }
    public void setMaxFilesPerPoll(int maxFilesPerPoll) { this.maxFilesPerPoll = maxFilesPerPoll; }
    public DataSize getMaxFileSize() { return maxFileSize; }
    public void setMaxFileSize(DataSize maxFileSize) { this.maxFileSize = maxFileSize; }
    public DataSize getMaxRecordSize() { return maxRecordSize; }
    public void setMaxRecordSize(DataSize maxRecordSize) { this.maxRecordSize = maxRecordSize; }
    public int getMaxFieldsPerRecord() { return maxFieldsPerRecord; }
    public void setMaxFieldsPerRecord(int maxFieldsPerRecord) { this.maxFieldsPerRecord = maxFieldsPerRecord; }
    public Duration getClaimLease() { return claimLease; }
    public void setClaimLease(Duration claimLease) { this.claimLease = claimLease; }
    /** How often the claims an instance holds are renewed: a third of {@link #getClaimLease()}. */
    public Duration getClaimRenewal() {
        return claimLease.dividedBy(3);
    }
    public boolean isFsync() { return fsync; }
    public void setFsync(boolean fsync) { this.fsync = fsync; }
    public Duration getUnknownFolderGrace() { return unknownFolderGrace; }
    public void setUnknownFolderGrace(Duration unknownFolderGrace) { this.unknownFolderGrace = unknownFolderGrace; }
    public Duration getStrayScanInterval() { return strayScanInterval; }
    public void setStrayScanInterval(Duration strayScanInterval) { this.strayScanInterval = strayScanInterval; }
    public Duration getFailureCoalesceWindow() { return failureCoalesceWindow; }
    public void setFailureCoalesceWindow(Duration failureCoalesceWindow) {
        this.failureCoalesceWindow = failureCoalesceWindow;
    }
}
