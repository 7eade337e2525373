package dev.ingestor.web;

import java.time.Duration;

import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * {@code ingestor.http.*}: what HTTP requests may carry and how they are answered. What one API key may do
 * ({@code ingestor.http.limits.*}) is {@link dev.ingestor.config.HttpLimits}.
 */
@Validated
@ConfigurationProperties(prefix = "ingestor.http")
public class HttpSettings {

    /**
     * What a multipart push may carry besides its file: the boundaries and the part headers of a form of at most
     * {@code server.tomcat.max-part-count} (50) parts of {@code server.tomcat.max-part-header-size} (512 B) each. The
     * file part itself is held to {@link #getMaxFileSize}; the whole body to that and this, so a file of the largest
     * size is taken as a multipart part as it is as a raw body.
     */
    public static final DataSize MULTIPART_ENVELOPE = DataSize.ofKilobytes(64);

    /** Largest file a push may carry (raw body or multipart part; also Spring's multipart limit). */
    private DataSize maxFileSize = DataSize.ofMegabytes(100);
    /** Largest JSON item batch. */
    private DataSize maxJsonSize = DataSize.ofMegabytes(10);
    /** Largest body of any other request (admin actions, queries, unknown paths): none of them carries data. */
    private DataSize maxBodySize = DataSize.ofKilobytes(64);
    /**
     * Largest sample file the admin preview of a supplier's mapping takes
     * ({@code POST /api/v1/admin/suppliers/{supplier}/preview}); only its first records are read.
     */
    private DataSize maxPreviewSize = DataSize.ofMegabytes(1);
    /** Most items one batch may hold; more is refused with 413 (send several batches, or a file). */
    @Positive
    private int maxItemsPerBatch = 10_000;
    /** Largest single item of a batch, in bytes of its JSON; a larger one is refused with 400 naming the item. */
    private DataSize maxRecordSize = DataSize.ofKilobytes(64);
    /** How long a request's Idempotency-Key and stored response are kept (docs/design.md, Keys expire). */
    @DurationMin(seconds = 1)
    private Duration idempotencyTtl = Duration.ofDays(30);
    /**
     * How long a request in flight holds its key. A retry meanwhile gets 409; after this, the key of a
     * request whose instance died is taken over by the retry. At least 3 s (renewed every third of it).
     */
    @DurationMin(seconds = 3)
    private Duration inFlightLease = Duration.ofMinutes(1);
    /** Seconds a caller is asked to wait (Retry-After) on 409 in flight and 503 transient failures. */
    @PositiveOrZero
    private int retryAfterSeconds = 5;
    /**
     * How long a repeated push of a finished job may be answered with the job as this instance last read it
     * (state, counts; the duplicate count carried on by the repeats answered here) instead of reading it
     * again. An operator action on this instance ends it at once; one on another instance, and duplicates
     * counted elsewhere, show within this time; 0 reads the job for every repeated push.
     */
    private Duration duplicateAnswerMaxAge = Duration.ofSeconds(10);

    public DataSize getMaxFileSize() { return maxFileSize; }
    public void setMaxFileSize(DataSize maxFileSize) { this.maxFileSize = maxFileSize; }
    public DataSize getMaxJsonSize() { return maxJsonSize; }
    public void setMaxJsonSize(DataSize maxJsonSize) { this.maxJsonSize = maxJsonSize; }
    public DataSize getMaxBodySize() { return maxBodySize; }
    public void setMaxBodySize(DataSize maxBodySize) { this.maxBodySize = maxBodySize; }
    public DataSize getMaxPreviewSize() { return maxPreviewSize; }
    public void setMaxPreviewSize(DataSize maxPreviewSize) { this.maxPreviewSize = maxPreviewSize; }
    public int getMaxItemsPerBatch() { return maxItemsPerBatch; }
    public void setMaxItemsPerBatch(int maxItemsPerBatch) { this.maxItemsPerBatch = maxItemsPerBatch; }
    public DataSize getMaxRecordSize() { return maxRecordSize; }
    public void setMaxRecordSize(DataSize maxRecordSize) { this.maxRecordSize = maxRecordSize; }
    public Duration getIdempotencyTtl() { return idempotencyTtl; }
    public void setIdempotencyTtl(Duration idempotencyTtl) { this.idempotencyTtl = idempotencyTtl; }
    public Duration getInFlightLease() { return inFlightLease; }
    public void setInFlightLease(Duration inFlightLease) { this.inFlightLease = inFlightLease; }
    public int getRetryAfterSeconds() { return retryAfterSeconds; }
    public void setRetryAfterSeconds(int retryAfterSeconds) { this.retryAfterSeconds = retryAfterSeconds; }
    public Duration getDuplicateAnswerMaxAge() { return duplicateAnswerMaxAge; }
    public void setDuplicateAnswerMaxAge(Duration duplicateAnswerMaxAge) {
        this.duplicateAnswerMaxAge = duplicateAnswerMaxAge;
    }
}
