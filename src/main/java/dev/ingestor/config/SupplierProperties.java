package dev.ingestor.config;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import jakarta.validation.Valid;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.util.unit.DataSize;

/** One supplier, {@code ingestor.suppliers.<CODE>.*}. */
public class SupplierProperties {

    /** The supplier's folder under the inbox. */
    @Valid
    private final FileDrop fileDrop = new FileDrop();
    /** The supplier's own SFTP server, polled by Ingestor. */
    @Valid
    private final Sftp sftp = new Sftp();
    /** How the supplier's files are written: csv or json. */
    private RecordFormat format = RecordFormat.CSV;
    /** Field separator of the supplier's CSV files. */
    private char csvDelimiter = ',';
    /** Character set of the supplier's files. */
    private Charset charset = StandardCharsets.UTF_8;
    /**
     * Hex SHA-256 of each API key this supplier may use over HTTP; several allow rotation.
     * The key itself is never configured, stored or logged.
     */
    private List<String> apiKeySha256 = new ArrayList<>();
    /**
     * The largest file this supplier may send (file drop, SFTP, HTTP); unset: {@code ingestor.intake.max-file-size}.
     */
    private DataSize maxFileSize;
    /** The largest record of this supplier's files; unset: {@code ingestor.intake.max-record-size}. */
    private DataSize maxRecordSize;
    /**
     * Most fields one record of this supplier's files may have; unset: {@code ingestor.intake.max-fields-per-record}.
     */
    private Integer maxFieldsPerRecord;
    /** The supplier's own webhook, told of this supplier's events only. */
    private final Notifications notifications = new Notifications();
    /** How the supplier's own layout becomes the delivery advice record (files only, not the HTTP item batch). */
    private final Mapping mapping = new Mapping();

    public Mapping getMapping() { return mapping; }
    public DataSize getMaxFileSize() { return maxFileSize; }
    public void setMaxFileSize(DataSize maxFileSize) { this.maxFileSize = maxFileSize; }
    public DataSize getMaxRecordSize() { return maxRecordSize; }
    public void setMaxRecordSize(DataSize maxRecordSize) { this.maxRecordSize = maxRecordSize; }
    public Integer getMaxFieldsPerRecord() { return maxFieldsPerRecord; }
    public void setMaxFieldsPerRecord(Integer maxFieldsPerRecord) { this.maxFieldsPerRecord = maxFieldsPerRecord; }
    public FileDrop getFileDrop() { return fileDrop; }
    public Notifications getNotifications() { return notifications; }
    public Sftp getSftp() { return sftp; }
    public List<String> getApiKeySha256() { return apiKeySha256; }
    public void setApiKeySha256(List<String> apiKeySha256) { this.apiKeySha256 = apiKeySha256; }
    public RecordFormat getFormat() { return format; }
    public void setFormat(RecordFormat format) { this.format = format; }
    public char getCsvDelimiter() { return csvDelimiter; }
    public void setCsvDelimiter(char csvDelimiter) { this.csvDelimiter = csvDelimiter; }
    public Charset getCharset() { return charset; }
    public void setCharset(Charset charset) { this.charset = charset; }

    public enum ReadLock {
        /** Take a file once its size and modification time stop changing for {@code min-age}. */
        CHANGED,
        /** Take a file only once its marker file ({@code <name><done-file-suffix>}) exists. */
        DONE_FILE
    }

    /** {@code ingestor.suppliers.<CODE>.file-drop.*}: the supplier's folder under the inbox. */
    public static class FileDrop {
        /** false: the supplier's folder is not watched. */
        private boolean enabled = true;
        /** When a file counts as complete: unchanged for {@code min-age}, or once its done file exists. */
        private ReadLock readLock = ReadLock.CHANGED;
        /** Suffix of the marker file (read lock {@code done-file}). */
        private String doneFileSuffix = ".done";
        /**
         * Read lock {@code changed}: a file is taken once polls at least this far apart, by this instance's clock,
         * listed it with the same size and modification time (the file's own time is only compared with itself).
         */
        private Duration minAge = Duration.ofSeconds(1);
        /** How often the supplier's folder is looked at; at least 10 ms (0 looked at it without a pause). */
        @DurationMin(millis = 10)
        private Duration pollInterval = Duration.ofMillis(500);
        /** Files of this supplier ingested in parallel. */
        private int concurrency = 4;

        public boolean isEnabled() { return enabled; }
        public void setEnabled(boolean enabled) { this.enabled = enabled; }
        public ReadLock getReadLock() { return readLock; }
        public void setReadLock(ReadLock readLock) { this.readLock = readLock; }
        public String getDoneFileSuffix() { return doneFileSuffix; }
        public void setDoneFileSuffix(String doneFileSuffix) { this.doneFileSuffix = doneFileSuffix; }
        public Duration getMinAge() { return minAge; }
        public void setMinAge(Duration minAge) { this.minAge = minAge; }
        public Duration getPollInterval() { return pollInterval; }
        public void setPollInterval(Duration pollInterval) { this.pollInterval = pollInterval; }
        public int getConcurrency() { return concurrency; }
        public void setConcurrency(int concurrency) { this.concurrency = concurrency; }
    }

    /** What happens to a remote file once it is ingested. */
    public enum AfterPickup {
        /** Moved to {@code .done/} in the polled directory (with a timestamp prefix). */
        MOVE,
        /** Deleted from the server. */
        DELETE
    }

    /**
     * {@code ingestor.suppliers.<CODE>.sftp.*}: the supplier's own SFTP server, polled by Ingestor. Without
     * {@code host} the supplier has no SFTP route.
     */
    public static class Sftp {
        /** The server; without it the supplier has no SFTP route. */
        private String host;
        /** The server's port. */
        private int port = 22;
        /** The login on the server. */
        private String username;
        /** Never logged; prefer {@code private-key-file}. */
        private String password;
        /** Path of the private key the login uses. */
        private String privateKeyFile;
        /** The server's host key must be in this known_hosts file (required while strict-host-key-checking is on). */
        private String knownHostsFile;
        /**
         * On by default: without a checked host key, anyone who can redirect the connection poses as the supplier's
         * server and receives the login. Turning it off is an explicit choice, warned about at start.
         */
        private boolean strictHostKeyChecking = true;
        /** Remote directory, relative to the login directory unless it starts with '/'. */
        private String directory = "";
        /**
         * How often the remote directory is polled; at least 100 ms: the server is the supplier's, and a login without
         * a pause would be an attack on it.
         */
        @DurationMin(millis = 100)
        private Duration pollInterval = Duration.ofSeconds(30);
        /** What happens to a remote file once it is ingested. */
        private AfterPickup afterPickup = AfterPickup.MOVE;
        /** Optional marker the supplier writes when a file is complete, e.g. {@code ${file:name}.done}. */
        private String doneFileName;
        /**
         * Without a done file: a file is taken once polls at least this far apart, by this instance's clock, listed
         * it with the same size and modification time (the server's clock plays no part); 0 takes it at first sight,
         * unchecked (for a supplier who moves each file into the folder whole).
         */
        @DurationMin(millis = 0)
        private Duration minAge = Duration.ofSeconds(3);
        /** Polls skipped after each failed one, so an unreachable server is tried (and logged) less often. */
        private int backoffMultiplier = 4;

        public boolean isEnabled() { return host != null && !host.isBlank(); }
        public String getHost() { return host; }
        public void setHost(String host) { this.host = host; }
        public int getPort() { return port; }
        public void setPort(int port) { this.port = port; }
        public String getUsername() { return username; }
        public void setUsername(String username) { this.username = username; }
        public String getPassword() { return password; }
        public void setPassword(String password) { this.password = password; }
        public String getPrivateKeyFile() { return privateKeyFile; }
        public void setPrivateKeyFile(String privateKeyFile) { this.privateKeyFile = privateKeyFile; }
        public String getKnownHostsFile() { return knownHostsFile; }
        public void setKnownHostsFile(String knownHostsFile) { this.knownHostsFile = knownHostsFile; }
        public boolean isStrictHostKeyChecking() { return strictHostKeyChecking; }
        public void setStrictHostKeyChecking(boolean strictHostKeyChecking) {
            this.strictHostKeyChecking = strictHostKeyChecking;
        }
        public String getDirectory() { return directory; }
        public void setDirectory(String directory) { this.directory = directory; }
        public Duration getPollInterval() { return pollInterval; }
        public void setPollInterval(Duration pollInterval) { this.pollInterval = pollInterval; }
        public AfterPickup getAfterPickup() { return afterPickup; }
        public void setAfterPickup(AfterPickup afterPickup) { this.afterPickup = afterPickup; }
        public String getDoneFileName() { return doneFileName; }
        public void setDoneFileName(String doneFileName) { this.doneFileName = doneFileName; }
        public Duration getMinAge() { return minAge; }
        public void setMinAge(Duration minAge) { this.minAge = minAge; }
        public int getBackoffMultiplier() { return backoffMultiplier; }
        public void setBackoffMultiplier(int backoffMultiplier) { this.backoffMultiplier = backoffMultiplier; }
    }

    /**
     * {@code ingestor.suppliers.<CODE>.notifications.*}: a webhook of the supplier's own, which receives this
     * supplier's events in addition to the installation-wide one (each signed with its own secret).
     */
    public static class Notifications {
        /** The supplier's webhook; empty: none. */
        private String webhookUrl = "";
        /**
         * The key of the X-Ingestor-Signature HMAC-SHA256 for the supplier's webhook; empty: its requests carry no
         * X-Ingestor-Signature (one WARN at start).
         */
        private String secret = "";

        public String getWebhookUrl() { return webhookUrl; }
        public void setWebhookUrl(String webhookUrl) { this.webhookUrl = webhookUrl; }
        public String getSecret() { return secret; }
        public void setSecret(String secret) { this.secret = secret; }
    }

    /**
     * {@code ingestor.suppliers.<CODE>.mapping.*}: the supplier's own layout of its files. Empty, a file uses the
     * record's field names, ISO dates and whole numbers.
     */
    public static class Mapping {
        /**
         * Supplier field name to record field (e.g. {@code "[Version Nr]": source_version}); names match in any case.
         * Each name in brackets: without, Spring Boot binds another name ({@code VersionNr}), and the start refuses it.
         */
        private java.util.Map<String, String> fields = new java.util.LinkedHashMap<>();
        /** CSV without a header row: the record field of each column, by position. */
        private List<String> columns = new ArrayList<>();
        /** false: the CSV file has no header row and {@code columns} names the columns. */
        private boolean header = true;
        /** Lines at the start of the file read past before the header (or first record). */
        private int skipLines;
        /** Quote character of the supplier's CSV files. */
        private char quote = '"';
        /** Lines of a CSV file starting with this character are comments and skipped; unset: none. */
        private Character comment;
        /**
         * Pattern of {@code delivery_date} in the supplier's files (java.time, e.g. {@code dd.MM.yyyy}); unset: ISO.
         */
        private String datePattern;
        /** Decimal separator of {@code quantity} in the supplier's files; unset: '.'. */
        private Character decimalSeparator;
        /** Grouping (thousands) separator of {@code quantity}, removed before the number is read; unset: none. */
        private Character groupingSeparator;
        /** Record field to value used when the supplier's value is absent or blank. */
        private java.util.Map<String, String> defaults = new java.util.LinkedHashMap<>();
        /** Record field to value that replaces whatever the supplier sent. */
        private java.util.Map<String, String> constants = new java.util.LinkedHashMap<>();
        /** Supplier fields dropped before validation (not kept as attributes). */
        private List<String> ignore = new ArrayList<>();
        /** JSON documents: the dotted path of the array of records inside the document, e.g. {@code order.lines}. */
        private String recordsPath;

        public java.util.Map<String, String> getFields() { return fields; }
        public void setFields(java.util.Map<String, String> fields) { this.fields = fields; }
        public List<String> getColumns() { return columns; }
        public void setColumns(List<String> columns) { this.columns = columns; }
        public boolean isHeader() { return header; }
        public void setHeader(boolean header) { this.header = header; }
        public int getSkipLines() { return skipLines; }
        public void setSkipLines(int skipLines) { this.skipLines = skipLines; }
        public char getQuote() { return quote; }
        public void setQuote(char quote) { this.quote = quote; }
        public Character getComment() { return comment; }
        public void setComment(Character comment) { this.comment = comment; }
        public String getDatePattern() { return datePattern; }
        public void setDatePattern(String datePattern) { this.datePattern = datePattern; }
        public Character getDecimalSeparator() { return decimalSeparator; }
        public void setDecimalSeparator(Character decimalSeparator) { this.decimalSeparator = decimalSeparator; }
        public Character getGroupingSeparator() { return groupingSeparator; }
        public void setGroupingSeparator(Character groupingSeparator) { this.groupingSeparator = groupingSeparator; }
        public java.util.Map<String, String> getDefaults() { return defaults; }
        public void setDefaults(java.util.Map<String, String> defaults) { this.defaults = defaults; }
        public java.util.Map<String, String> getConstants() { return constants; }
        public void setConstants(java.util.Map<String, String> constants) { this.constants = constants; }
        public List<String> getIgnore() { return ignore; }
        public void setIgnore(List<String> ignore) { this.ignore = ignore; }
        public String getRecordsPath() { return recordsPath; }
        public void setRecordsPath(String recordsPath) { this.recordsPath = recordsPath; }
    }
}
