package dev.ingestor.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/**
 * Everything Ingestor reads from configuration, under the single prefix {@code ingestor.*}.
 * Defaults live in application.yaml so that one file documents them; the values here only keep
 * the object usable when it is built by hand in unit tests.
 */
@ConfigurationProperties(prefix = "ingestor")
public class IngestorProperties {

    /** Where raw files, the embedded database and other state live. */
    private Path dataDir = Path.of("data");
    /** The file-drop inbox: one sub-folder per supplier code. */
    private Path inboxDir = Path.of("inbox");
    /**
     * Content-addressed raw files. Several instances must share it (a shared volume): any instance may
     * validate and process a file another instance took in. Empty: {@code <data-dir>/raw}.
     */
    private Path rawDir;
    /** Folder the YAML routes are read from; when it holds none, the copy in the jar is used. */
    private Path routesDir = Path.of("routes");
    /** Identifies this instance in claims and logs; several instances may share one database. */
    private String instanceId;
    private final Intake intake = new Intake();
    private final Pipeline pipeline = new Pipeline();
    private final Kafka kafka = new Kafka();
    private final Http http = new Http();
    private final Admin admin = new Admin();
    private final Metrics metrics = new Metrics();
    private final Retention retention = new Retention();
    private final Outbox outbox = new Outbox();
    private final Notifications notifications = new Notifications();
    private final Database database = new Database();
    /** The suppliers by code; each gets a folder under the inbox and, with a host, an SFTP route. */
    private final Map<String, SupplierProperties> suppliers = new LinkedHashMap<>();

    public Path getDataDir() { return dataDir; }
    public void setDataDir(Path dataDir) { this.dataDir = dataDir; }
    public Path getInboxDir() { return inboxDir; }
    public void setInboxDir(Path inboxDir) { this.inboxDir = inboxDir; }
    /**
     * true: changes to the route files under {@code routes-dir} (and its {@code suppliers/}) are loaded while the
     * app runs (Camel's route reload); a file that does not load is logged and the running routes stay.
     */
    private boolean routesReload = false;

    public boolean isRoutesReload() { return routesReload; }
    public void setRoutesReload(boolean routesReload) { this.routesReload = routesReload; }
    public Path getRoutesDir() { return routesDir; }
    public void setRoutesDir(Path routesDir) { this.routesDir = routesDir; }
    public String getInstanceId() { return instanceId; }
    public void setInstanceId(String instanceId) { this.instanceId = instanceId; }
    public Intake getIntake() { return intake; }
    public Pipeline getPipeline() { return pipeline; }
    public Kafka getKafka() { return kafka; }
    public Http getHttp() { return http; }
    public Admin getAdmin() { return admin; }
    public Metrics getMetrics() { return metrics; }
    public Retention getRetention() { return retention; }
    public Outbox getOutbox() { return outbox; }
    public Notifications getNotifications() { return notifications; }
    public Database getDatabase() { return database; }
    public Map<String, SupplierProperties> getSuppliers() { return suppliers; }

    public Path rawDir() { return rawDir != null && !rawDir.toString().isBlank() ? rawDir : dataDir.resolve("raw"); }
    public Path getRawDir() { return rawDir; }
    public void setRawDir(Path rawDir) { this.rawDir = rawDir; }

    public static class Intake {
        /** How long a claim on an inbox file holds before another instance may take the file over. */
        private Duration claimLease = Duration.ofMinutes(10);
        /** Whether raw files are forced to disk before their job commits (survives power loss). */
        private boolean fsync = true;
        /** How often the inbox is scanned for files outside any supplier folder. */
        private Duration strayScanInterval = Duration.ofSeconds(30);
        /** Redelivery of transient intake failures (a full disk, the database away for a moment). */
        private final Redelivery redelivery = new Redelivery(5, Duration.ofSeconds(1), Duration.ofSeconds(30));
        /** The largest file a supplier may send by any source, unless its own {@code max-file-size} says otherwise. */
        private DataSize maxFileSize = DataSize.ofMegabytes(100);
        /**
         * The largest record of a file from any source, in characters of its text (a CSV line with its quoted line
         * breaks, a JSON object, a JSON line): checked while the file is read, a larger record is quarantined naming
         * this limit and the file goes on. Per supplier: {@code ingestor.suppliers.<CODE>.max-record-size}.
         */
        private DataSize maxRecordSize = DataSize.ofKilobytes(64);
        /**
         * Most fields one record of a file may have (CSV columns, a JSON object's fields): checked while the file is
         * read, a record with more is quarantined naming this limit. Per supplier:
         * {@code ingestor.suppliers.<CODE>.max-fields-per-record}.
         */
        private int maxFieldsPerRecord = 1000;
        /**
         * Intake failures that kept no file (refused HTTP pushes) of one kind (supplier, source, outcome, reason)
         * within one window of this length are one row with a count. 0: one row per arrival.
         */
        private Duration failureCoalesceWindow = Duration.ofMinutes(1);
        /**
         * The most files one poll of a supplier's folder (file drop or SFTP) takes; the rest wait for the next poll.
         * A folder of a million files is then claimed and queued a thousand files at a time, never all at once.
         */
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
        public boolean isFsync() { return fsync; }
        public void setFsync(boolean fsync) { this.fsync = fsync; }
        public Duration getStrayScanInterval() { return strayScanInterval; }
        public void setStrayScanInterval(Duration strayScanInterval) { this.strayScanInterval = strayScanInterval; }
        public Redelivery getRedelivery() { return redelivery; }
        public Duration getFailureCoalesceWindow() { return failureCoalesceWindow; }
        public void setFailureCoalesceWindow(Duration failureCoalesceWindow) { this.failureCoalesceWindow = failureCoalesceWindow; }
    }

    /**
     * Camel's redelivery policy for transient failures of a stage (routes/error-handling.camel.yaml). A plain
     * number is read as milliseconds, as before the delays were durations.
     */
    public static class Redelivery {
        /** Redeliveries after the first attempt; then the failure is final. */
        private int maximumRedeliveries;
        /** Wait before the first redelivery; doubled after each, up to {@code maximum-delay}. */
        private Duration delay;
        /** The longest wait between two redeliveries. */
        private Duration maximumDelay;

        public Redelivery() {
            this(5, Duration.ofSeconds(1), Duration.ofSeconds(30));
        }

        Redelivery(int maximumRedeliveries, Duration delay, Duration maximumDelay) {
            this.maximumRedeliveries = maximumRedeliveries;
            this.delay = delay;
            this.maximumDelay = maximumDelay;
        }

        public int getMaximumRedeliveries() { return maximumRedeliveries; }
        public void setMaximumRedeliveries(int maximumRedeliveries) { this.maximumRedeliveries = maximumRedeliveries; }
        public Duration getDelay() { return delay; }
        public void setDelay(Duration delay) { this.delay = delay; }
        public Duration getMaximumDelay() { return maximumDelay; }
        public void setMaximumDelay(Duration maximumDelay) { this.maximumDelay = maximumDelay; }
    }

    /** Validation and processing: {@code ingestor.pipeline.*}. */
    public static class Pipeline {
        /** A worker's hold on a job; after it runs out without renewal, another worker takes the job over. */
        private Duration lease = Duration.ofMinutes(10);
        /**
         * Records per processing transaction (effects, outbox rows and checkpoint commit together); a file of at
         * most this many records and at most one-pass-max-size is processed by the worker that validated it.
         */
        private int batchSize = 1000;
        /**
         * A file of at most this size (and at most batch-size records) is validated and processed by one worker,
         * which keeps its records in memory between the two and reads it once; 0B: every file is read twice, by a
         * validation worker and by a processing worker.
         */
        private DataSize onePassMaxSize = DataSize.ofMegabytes(1);
        /**
         * Small files (each and all together at most one-pass-max-size, each at most batch-size records) a validation
         * worker takes from the front of the queue at once and validates and processes in one transaction; a group
         * that fails is done again one file at a time. 1: one file at a time.
         */
        private int groupSize = 50;
        /**
         * How long a group gathers: a worker that claims a small file younger than this waits until it is this old
         * before it claims the files that came after it, so that files arriving one by one still travel in groups.
         * 0: a group is what waits at the moment of the claim.
         */
        private Duration groupLinger = Duration.ofMillis(50);
        /** false: this instance only takes files in. */
        private boolean enabled = true;
        /** Workers per stage on this instance, each working on its own job. */
        private int workers = 2;
        /**
         * Takeovers of a job whose worker stopped answering (its lease ran out) before the job counts as poison:
         * it is then FAILED with a dead letter instead of being taken over again.
         */
        private int maxTakeovers = 3;
        /** How long an idle worker waits before it looks for a claimable job again. */
        private Duration pollInterval = Duration.ofMillis(500);
        /** The validation stage: {@code ingestor.pipeline.validation.*}. */
        private final PipelineStage validation = new PipelineStage(Duration.ofSeconds(60));
        /** The processing stage: {@code ingestor.pipeline.processing.*}. */
        private final PipelineStage processing = new PipelineStage(Duration.ofSeconds(120));
        /** The former single policy of both stages, still read when an operator's configuration sets it. */
        private final FormerPipelineRedelivery redelivery = new FormerPipelineRedelivery();

        public Duration getPollInterval() { return pollInterval; }
        public void setPollInterval(Duration pollInterval) { this.pollInterval = pollInterval; }
        public PipelineStage getValidation() { return validation; }
        public PipelineStage getProcessing() { return processing; }
        public FormerPipelineRedelivery getRedelivery() { return redelivery; }
        /** Validation's policy, with what the former {@code ingestor.pipeline.redelivery.*} sets on top. */
        public StageRedelivery validationRedelivery() { return redelivery.over(validation.getRedelivery()); }
        /** Processing's policy, with what the former {@code ingestor.pipeline.redelivery.*} sets on top. */
        public StageRedelivery processingRedelivery() { return redelivery.over(processing.getRedelivery()); }
        public Duration getLease() { return lease; }
        public void setLease(Duration lease) { this.lease = lease; }
        public int getBatchSize() { return batchSize; }
        public boolean isEnabled() { return enabled; }
        public void setEnabled(boolean enabled) { this.enabled = enabled; }
        public int getWorkers() { return workers; }
        public void setWorkers(int workers) { this.workers = workers; }
        public void setBatchSize(int batchSize) { this.batchSize = batchSize; }
        public DataSize getOnePassMaxSize() { return onePassMaxSize; }
        public void setOnePassMaxSize(DataSize onePassMaxSize) { this.onePassMaxSize = onePassMaxSize; }
        public int getGroupSize() { return groupSize; }
        public Duration getGroupLinger() { return groupLinger; }
        public void setGroupLinger(Duration groupLinger) { this.groupLinger = groupLinger; }
        public void setGroupSize(int groupSize) { this.groupSize = groupSize; }
        public int getMaxTakeovers() { return maxTakeovers; }
        public void setMaxTakeovers(int maxTakeovers) { this.maxTakeovers = maxTakeovers; }
    }

    /** One stage of the pipeline: {@code ingestor.pipeline.validation.*} or {@code ingestor.pipeline.processing.*}. */
    public static class PipelineStage {
        /** Redelivery of the stage's transient failures (routes/error-handling.camel.yaml). */
        private final StageRedelivery redelivery;

        // a public no-argument constructor next to the other: bound as a JavaBean, not through a constructor
        public PipelineStage() {
            this(Duration.ofSeconds(60));
        }

        PipelineStage(Duration delay) {
            this.redelivery = new StageRedelivery(2, delay, delay, 1);
        }

        public StageRedelivery getRedelivery() { return redelivery; }
    }

    /**
     * Camel's redelivery policy for the transient failures of one pipeline stage: fixed delays unless
     * {@code backoff-multiplier} is above 1. A plain number is read as milliseconds.
     */
    public static class StageRedelivery {
        /** Redeliveries after the first attempt (2: 3 tries in all); then the job goes to the dead-letter channel. */
        private int maximumRedeliveries;
        /** Wait before the first redelivery; multiplied by {@code backoff-multiplier} after each, up to {@code maximum-delay}. */
        private Duration delay;
        /** The longest wait between two redeliveries. */
        private Duration maximumDelay;
        /** What each wait is multiplied by for the next one: 1 keeps the delay fixed, 2 doubles it. */
        private double backoffMultiplier;

        public StageRedelivery() {
            this(2, Duration.ofSeconds(60), Duration.ofSeconds(60), 1);
        }

        StageRedelivery(int maximumRedeliveries, Duration delay, Duration maximumDelay, double backoffMultiplier) {
            this.maximumRedeliveries = maximumRedeliveries;
            this.delay = delay;
            this.maximumDelay = maximumDelay;
            setBackoffMultiplier(backoffMultiplier);
        }

        public int getMaximumRedeliveries() { return maximumRedeliveries; }
        public void setMaximumRedeliveries(int maximumRedeliveries) { this.maximumRedeliveries = maximumRedeliveries; }
        public Duration getDelay() { return delay; }
        public void setDelay(Duration delay) { this.delay = delay; }
        public Duration getMaximumDelay() { return maximumDelay; }
        public void setMaximumDelay(Duration maximumDelay) { this.maximumDelay = maximumDelay; }
        public double getBackoffMultiplier() { return backoffMultiplier; }
        public void setBackoffMultiplier(double backoffMultiplier) {
            // below 1 each wait would shrink towards nothing: a retry storm against whatever just failed
            if (!(backoffMultiplier >= 1)) {
                throw new IllegalArgumentException("backoff-multiplier must be at least 1 (1: a fixed delay), not " + backoffMultiplier);
            }
            this.backoffMultiplier = backoffMultiplier;
        }
    }

    /**
     * {@code ingestor.pipeline.redelivery.*}, the one policy both stages shared before each had its own. Unset
     * unless an operator's configuration sets it; what it sets then overrides that setting of both stages, with
     * its former meaning: a delay set here doubles after each redelivery (up to 5 minutes unless its
     * {@code maximum-delay} says otherwise), as it did.
     */
    public static class FormerPipelineRedelivery {
        private static final Duration FORMER_MAXIMUM_DELAY = Duration.ofMinutes(5);
        /** Redeliveries after the first attempt, for both stages. */
        private Integer maximumRedeliveries;
        /** Wait before the first redelivery, doubled after each, for both stages. */
        private Duration delay;
        /** The longest wait between two redeliveries, for both stages. */
        private Duration maximumDelay;

        @Deprecated
        @DeprecatedConfigurationProperty(replacement = "ingestor.pipeline.validation.redelivery.maximum-redeliveries",
                reason = "each stage has its own: ingestor.pipeline.validation.redelivery.* and ingestor.pipeline.processing.redelivery.*")
        public Integer getMaximumRedeliveries() { return maximumRedeliveries; }
        @Deprecated
        public void setMaximumRedeliveries(Integer maximumRedeliveries) { this.maximumRedeliveries = maximumRedeliveries; }
        @Deprecated
        @DeprecatedConfigurationProperty(replacement = "ingestor.pipeline.validation.redelivery.delay",
                reason = "each stage has its own: ingestor.pipeline.validation.redelivery.* and ingestor.pipeline.processing.redelivery.*")
        public Duration getDelay() { return delay; }
        @Deprecated
        public void setDelay(Duration delay) { this.delay = delay; }
        @Deprecated
        @DeprecatedConfigurationProperty(replacement = "ingestor.pipeline.validation.redelivery.maximum-delay",
                reason = "each stage has its own: ingestor.pipeline.validation.redelivery.* and ingestor.pipeline.processing.redelivery.*")
        public Duration getMaximumDelay() { return maximumDelay; }
        @Deprecated
        public void setMaximumDelay(Duration maximumDelay) { this.maximumDelay = maximumDelay; }

        /** {@code stage}'s policy with what is set here on top; {@code stage} itself is left as bound. */
        StageRedelivery over(StageRedelivery stage) {
            StageRedelivery effective = new StageRedelivery(stage.getMaximumRedeliveries(), stage.getDelay(),
                    stage.getMaximumDelay(), stage.getBackoffMultiplier());
            if (maximumRedeliveries != null) {
                effective.setMaximumRedeliveries(maximumRedeliveries);
            }
            if (delay != null || maximumDelay != null) {
                effective.setDelay(delay != null ? delay : stage.getDelay());
                effective.setMaximumDelay(maximumDelay != null ? maximumDelay : FORMER_MAXIMUM_DELAY);
                effective.setBackoffMultiplier(2);
            }
            return effective;
        }
    }

    /** {@code ingestor.kafka.*}: empty bootstrap servers start the embedded broker. */
    public static class Kafka {
        /** The Kafka cluster events go to; empty: the embedded single-node broker ({@code ingestor.embedded.kafka.port}). */
        private String bootstrapServers = "";
        /** Topic of the item events. */
        private String itemsTopic = "ingestor.items";
        /** Topic of the dead-letter events. */
        private String deadLettersTopic = "ingestor.dead-letters";

        public String getBootstrapServers() { return bootstrapServers; }
        public void setBootstrapServers(String bootstrapServers) { this.bootstrapServers = bootstrapServers; }
        public String getItemsTopic() { return itemsTopic; }
        public void setItemsTopic(String itemsTopic) { this.itemsTopic = itemsTopic; }
        public String getDeadLettersTopic() { return deadLettersTopic; }
        public void setDeadLettersTopic(String deadLettersTopic) { this.deadLettersTopic = deadLettersTopic; }
    }

    /** {@code ingestor.http.*}: supplier pushes over HTTP. */
    public static class Http {
        /** Largest file a push may carry (raw body or multipart part). */
        private DataSize maxFileSize = DataSize.ofMegabytes(100);
        /** Largest JSON item batch. */
        private DataSize maxJsonSize = DataSize.ofMegabytes(10);
        /** How long a request's Idempotency-Key and stored response are kept (docs/design.md, Keys expire). */
        private Duration idempotencyTtl = Duration.ofDays(30);
        /**
         * How long a request in flight holds its key. A retry meanwhile gets 409; after this, the key of a
         * request whose instance died is taken over by the retry.
         */
        private Duration inFlightLease = Duration.ofMinutes(1);
        /** Seconds a caller is asked to wait (Retry-After) on 409 in flight and 503 transient failures. */
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
        public Duration getIdempotencyTtl() { return idempotencyTtl; }
        public void setIdempotencyTtl(Duration idempotencyTtl) { this.idempotencyTtl = idempotencyTtl; }
        public Duration getInFlightLease() { return inFlightLease; }
        public void setInFlightLease(Duration inFlightLease) { this.inFlightLease = inFlightLease; }
        public int getRetryAfterSeconds() { return retryAfterSeconds; }
        public void setRetryAfterSeconds(int retryAfterSeconds) { this.retryAfterSeconds = retryAfterSeconds; }
        public Duration getDuplicateAnswerMaxAge() { return duplicateAnswerMaxAge; }
        public void setDuplicateAnswerMaxAge(Duration duplicateAnswerMaxAge) { this.duplicateAnswerMaxAge = duplicateAnswerMaxAge; }

        private final Limits limits = new Limits();
        public Limits getLimits() { return limits; }

        /** Largest body of any other request (admin actions, queries, unknown paths): none of them needs more. */
        private DataSize maxBodySize = DataSize.ofKilobytes(64);
        /** Most items one batch may hold; more is refused with 413 (send several batches, or a file). */
        private int maxItemsPerBatch = 10_000;
        /** Largest single record of an item batch, in bytes of its JSON; a larger one is refused with 400. */
        private DataSize maxRecordSize = DataSize.ofKilobytes(64);

        /** Largest sample file the admin preview takes ({@code POST /api/v1/admin/suppliers/{supplier}/preview}). */
        private DataSize maxPreviewSize = DataSize.ofMegabytes(1);

        public DataSize getMaxPreviewSize() { return maxPreviewSize; }
        public void setMaxPreviewSize(DataSize maxPreviewSize) { this.maxPreviewSize = maxPreviewSize; }
        public DataSize getMaxBodySize() { return maxBodySize; }
        public void setMaxBodySize(DataSize maxBodySize) { this.maxBodySize = maxBodySize; }
        public int getMaxItemsPerBatch() { return maxItemsPerBatch; }
        public void setMaxItemsPerBatch(int maxItemsPerBatch) { this.maxItemsPerBatch = maxItemsPerBatch; }
        public DataSize getMaxRecordSize() { return maxRecordSize; }
        public void setMaxRecordSize(DataSize maxRecordSize) { this.maxRecordSize = maxRecordSize; }
    }

    /** {@code ingestor.http.limits.*}: what one API key, and one client address failing to authenticate, may do. */
    public static class Limits {
        /** Requests of one key being served at once; more are answered 429. */
        private int maxConcurrentPerKey = 32;
        /** Sustained requests per second of one key (token bucket refill). */
        private int requestsPerSecond = 5000;
        /** Requests one key may send at once above the sustained rate (token bucket capacity). */
        private int burst = 10000;
        /** Failed authentications from one client address per window before it is answered 429 until the window ends. */
        private int failedAuthPerWindow = 20;
        /** How long failures from one address are counted, and how long it is refused once over the limit. */
        private Duration failedAuthWindow = Duration.ofMinutes(1);

        public int getMaxConcurrentPerKey() { return maxConcurrentPerKey; }
        public void setMaxConcurrentPerKey(int maxConcurrentPerKey) { this.maxConcurrentPerKey = maxConcurrentPerKey; }
        public int getRequestsPerSecond() { return requestsPerSecond; }
        public void setRequestsPerSecond(int requestsPerSecond) { this.requestsPerSecond = requestsPerSecond; }
        public int getBurst() { return burst; }
        public void setBurst(int burst) { this.burst = burst; }
        public int getFailedAuthPerWindow() { return failedAuthPerWindow; }
        public void setFailedAuthPerWindow(int failedAuthPerWindow) { this.failedAuthPerWindow = failedAuthPerWindow; }
        public Duration getFailedAuthWindow() { return failedAuthWindow; }
        public void setFailedAuthWindow(Duration failedAuthWindow) { this.failedAuthWindow = failedAuthWindow; }
    }

    /** {@code ingestor.admin.*}: the operators' key, which reaches every supplier. */
    public static class Admin {
        /** Hex SHA-256 of each admin API key; several allow rotation. */
        private List<String> apiKeySha256 = new ArrayList<>();

        public List<String> getApiKeySha256() { return apiKeySha256; }
        public void setApiKeySha256(List<String> apiKeySha256) { this.apiKeySha256 = apiKeySha256; }
    }

    /** {@code ingestor.metrics.*}: how Prometheus scrapes without the admin key. */
    public static class Metrics {
        /**
         * Hex SHA-256 of each token Prometheus may scrape {@code /actuator/prometheus} with ({@code Authorization:
         * Bearer <token>}); several allow rotation. The token reaches that endpoint only. Empty: only the admin key
         * scrapes.
         */
        private List<String> bearerTokenSha256 = new ArrayList<>();

        public List<String> getBearerTokenSha256() { return bearerTokenSha256; }
        public void setBearerTokenSha256(List<String> bearerTokenSha256) { this.bearerTokenSha256 = bearerTokenSha256; }
    }

    /** {@code ingestor.retention.*}: housekeeping (routes/housekeeping.camel.yaml). */
    public static class Retention {
        /** How often retention and recovery run (recovery also runs at start). */
        private Duration interval = Duration.ofHours(1);
        /** Rows per DELETE statement, so no statement holds its locks for long. */
        private int batchSize = 1000;
        /** Finished jobs (with their records, dead letters, content keys and raw files) older than this go; 0 keeps them. */
        private Duration jobMaxAge = Duration.ofDays(365);
        /** Published outbox rows older than this go. */
        private Duration outboxMaxAge = Duration.ofDays(7);
        /** Intake failures older than this are no longer listed (a failed file never retried keeps its row); 0 keeps them. */
        private Duration intakeFailures = Duration.ofDays(90);
        // the former names; set only by an operator's own configuration, so when present they win over the
        // defaults of the new names in application.yaml
        /** Finished jobs older than this go; replaced by {@code job-max-age}. */
        private Duration jobs;
        /** Published outbox rows older than this go; replaced by {@code outbox-max-age}. */
        private Duration outbox;

        public Duration getInterval() { return interval; }
        public void setInterval(Duration interval) { this.interval = interval; }
        public int getBatchSize() { return batchSize; }
        public void setBatchSize(int batchSize) { this.batchSize = batchSize; }
        public Duration getJobMaxAge() { return jobs != null ? jobs : jobMaxAge; }
        public void setJobMaxAge(Duration jobMaxAge) { this.jobMaxAge = jobMaxAge; }
        public Duration getOutboxMaxAge() { return outbox != null ? outbox : outboxMaxAge; }
        public void setOutboxMaxAge(Duration outboxMaxAge) { this.outboxMaxAge = outboxMaxAge; }
        public Duration getIntakeFailures() { return intakeFailures; }
        public void setIntakeFailures(Duration intakeFailures) { this.intakeFailures = intakeFailures; }

        @Deprecated
        @DeprecatedConfigurationProperty(replacement = "ingestor.retention.job-max-age", reason = "named as the age it is")
        public Duration getJobs() { return jobs; }
        @Deprecated
        public void setJobs(Duration jobs) { this.jobs = jobs; }
        @Deprecated
        @DeprecatedConfigurationProperty(replacement = "ingestor.retention.outbox-max-age", reason = "named as the age it is")
        public Duration getOutbox() { return outbox; }
        @Deprecated
        public void setOutbox(Duration outbox) { this.outbox = outbox; }
    }

    /** {@code ingestor.outbox.*}: the relay to Kafka (routes/outbox-relay.camel.yaml). */
    public static class Outbox {
        /**
         * Largest event the relay sends (the producer's max.request.size). A larger one is refused for good and
         * becomes a dead letter; the broker's own limit (max.message.bytes) must be at least this.
         */
        private DataSize maxEventSize = DataSize.ofMegabytes(1);
        /** How long the relay waits before it looks for new events again once a topic's backlog is empty. */
        private Duration pollInterval = Duration.ofMillis(200);
        /**
         * Events taken per relay transaction at most. Each round reads the index of unpublished events from its
         * start and commits once, so fewer, larger rounds keep the relay ahead of processing.
         */
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
         * request.timeout.ms): a broker that does not answer within it counts as a failure that may pass.
         */
        private Duration kafkaTimeout = Duration.ofSeconds(5);
        /** The producer's delivery.timeout.ms: every record is acknowledged or failed within it. */
        private Duration kafkaDeliveryTimeout = Duration.ofSeconds(15);
        // the former names in milliseconds; set only by an operator's own configuration, so when present they
        // win over the defaults of the new names in application.yaml
        /** Milliseconds of {@code kafka-timeout}, which replaces it. */
        private Long kafkaTimeoutMs;
        /** Milliseconds of {@code kafka-delivery-timeout}, which replaces it. */
        private Long kafkaDeliveryTimeoutMs;

        public DataSize getMaxEventSize() { return maxEventSize; }
        public void setMaxEventSize(DataSize maxEventSize) { this.maxEventSize = maxEventSize; }
        public Duration getPollInterval() { return pollInterval; }
        public void setPollInterval(Duration pollInterval) { this.pollInterval = pollInterval; }
        public int getBatchSize() { return batchSize; }
        public void setBatchSize(int batchSize) { this.batchSize = batchSize; }
        public DataSize getBatchBytes() { return batchBytes; }
        public void setBatchBytes(DataSize batchBytes) { this.batchBytes = batchBytes; }
        public Duration getKafkaTimeout() { return kafkaTimeoutMs != null ? Duration.ofMillis(kafkaTimeoutMs) : kafkaTimeout; }
        public void setKafkaTimeout(Duration kafkaTimeout) { this.kafkaTimeout = kafkaTimeout; }
        public Duration getKafkaDeliveryTimeout() {
            return kafkaDeliveryTimeoutMs != null ? Duration.ofMillis(kafkaDeliveryTimeoutMs) : kafkaDeliveryTimeout;
        }
        public void setKafkaDeliveryTimeout(Duration kafkaDeliveryTimeout) { this.kafkaDeliveryTimeout = kafkaDeliveryTimeout; }

        @Deprecated
        @DeprecatedConfigurationProperty(replacement = "ingestor.outbox.kafka-timeout", reason = "a duration, e.g. 5s")
        public Long getKafkaTimeoutMs() { return kafkaTimeoutMs; }
        @Deprecated
        public void setKafkaTimeoutMs(Long kafkaTimeoutMs) { this.kafkaTimeoutMs = kafkaTimeoutMs; }
        @Deprecated
        @DeprecatedConfigurationProperty(replacement = "ingestor.outbox.kafka-delivery-timeout", reason = "a duration, e.g. 15s")
        public Long getKafkaDeliveryTimeoutMs() { return kafkaDeliveryTimeoutMs; }
        @Deprecated
        public void setKafkaDeliveryTimeoutMs(Long kafkaDeliveryTimeoutMs) { this.kafkaDeliveryTimeoutMs = kafkaDeliveryTimeoutMs; }
    }

    /**
     * {@code ingestor.notifications.*}: the webhook told of failed jobs, dead letters, intake failures and a
     * stalled relay (routes/notifications.camel.yaml). No URL: nothing is written, nothing is sent.
     */
    public static class Notifications {
        /** The installation-wide webhook; empty: none. A supplier's own webhook receives its events as well. */
        private String webhookUrl = "";
        /** The key of the X-Ingestor-Signature HMAC-SHA256 for the installation-wide webhook. */
        private String secret = "";
        /** How often the delivery looks for notifications due. */
        private Duration pollInterval = Duration.ofSeconds(1);
        /** Notifications taken per delivery round; a round waits for no answer, each webhook is a lane of its own. */
        private int batchSize = 10;
        /** Time allowed to open the connection to the webhook. */
        private Duration connectTimeout = Duration.ofSeconds(5);
        /** Time allowed for the webhook's answer once the request is sent. */
        private Duration readTimeout = Duration.ofSeconds(10);
        /** Attempts in all before a notification is given up. */
        private int maxAttempts = 8;
        /** Wait after the first failed attempt; doubled after each one, up to {@code maximum-delay}. */
        private Duration delay = Duration.ofSeconds(10);
        /** Longest wait between two attempts. */
        private Duration maximumDelay = Duration.ofMinutes(30);
        /** The oldest unpublished Kafka outbox event older than this: the relay counts as stalled. */
        private Duration relayStalledAfter = Duration.ofMinutes(5);
        /** How often the relay is checked for a stall. */
        private Duration relayCheckInterval = Duration.ofSeconds(30);
        /** Delivered or given-up notifications are deleted this long after (every {@code ingestor.retention.interval}). */
        private Duration keepSettled = Duration.ofDays(7);
        /**
         * Intake notices of one kind (type, supplier, source, reason) are sent at most once per this window: the
         * first at once, the facts after it counted into one notice sent when the window has passed. 0: one notice
         * per fact.
         */
        private Duration coalesceWindow = Duration.ofMinutes(1);

        public String getWebhookUrl() { return webhookUrl; }
        public void setWebhookUrl(String webhookUrl) { this.webhookUrl = webhookUrl; }
        public String getSecret() { return secret; }
        public void setSecret(String secret) { this.secret = secret; }
        public Duration getPollInterval() { return pollInterval; }
        public void setPollInterval(Duration pollInterval) { this.pollInterval = pollInterval; }
        public int getBatchSize() { return batchSize; }
        public void setBatchSize(int batchSize) { this.batchSize = batchSize; }
        public Duration getConnectTimeout() { return connectTimeout; }
        public void setConnectTimeout(Duration connectTimeout) { this.connectTimeout = connectTimeout; }
        public Duration getReadTimeout() { return readTimeout; }
        public void setReadTimeout(Duration readTimeout) { this.readTimeout = readTimeout; }
        public int getMaxAttempts() { return maxAttempts; }
        public void setMaxAttempts(int maxAttempts) { this.maxAttempts = maxAttempts; }
        public Duration getDelay() { return delay; }
        public void setDelay(Duration delay) { this.delay = delay; }
        public Duration getMaximumDelay() { return maximumDelay; }
        public void setMaximumDelay(Duration maximumDelay) { this.maximumDelay = maximumDelay; }
        public Duration getRelayStalledAfter() { return relayStalledAfter; }
        public void setRelayStalledAfter(Duration relayStalledAfter) { this.relayStalledAfter = relayStalledAfter; }
        public Duration getRelayCheckInterval() { return relayCheckInterval; }
        public void setRelayCheckInterval(Duration relayCheckInterval) { this.relayCheckInterval = relayCheckInterval; }
        public Duration getKeepSettled() { return keepSettled; }
        public void setKeepSettled(Duration keepSettled) { this.keepSettled = keepSettled; }
        public Duration getCoalesceWindow() { return coalesceWindow; }
        public void setCoalesceWindow(Duration coalesceWindow) { this.coalesceWindow = coalesceWindow; }
    }

    /**
     * Time limits of every connection to PostgreSQL, embedded or external: {@code ingestor.database.*} (applied by
     * {@link DatabaseTimeouts}). A statement past its limit is cancelled and a server that stops answering is given
     * up on, so a hung database answers HTTP callers 503 + Retry-After and sends a stage's step to redelivery,
     * instead of holding a thread and a connection for as long as it hangs.
     */
    public static class Database {
        /**
         * The longest any statement may run, waits for locks included (PostgreSQL's statement_timeout); 0: no
         * limit. Migrations at start are not bound by it.
         */
        private Duration statementTimeout = Duration.ofSeconds(30);
        /**
         * The longest a statement waits for a lock (PostgreSQL's lock_timeout); 0: only statement-timeout bounds
         * the wait.
         */
        private Duration lockTimeout = Duration.ZERO;
        /**
         * The longest the driver waits for the server to answer (pgjdbc's socketTimeout, in whole seconds); past it
         * the connection is closed. Longer than statement-timeout, so that a slow statement is cancelled by the
         * server while its connection stays usable; 0: no limit.
         */
        private Duration socketTimeout = Duration.ofSeconds(60);

        public Duration getStatementTimeout() { return statementTimeout; }
        public void setStatementTimeout(Duration statementTimeout) { this.statementTimeout = statementTimeout; }
        public Duration getLockTimeout() { return lockTimeout; }
        public void setLockTimeout(Duration lockTimeout) { this.lockTimeout = lockTimeout; }
        public Duration getSocketTimeout() { return socketTimeout; }
        public void setSocketTimeout(Duration socketTimeout) { this.socketTimeout = socketTimeout; }
    }
}
