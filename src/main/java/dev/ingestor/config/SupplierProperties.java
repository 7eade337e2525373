package dev.ingestor.config;

import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ingestor.record.RecordFormat;
import dev.ingestor.record.RecordReader;

/** One supplier, {@code ingestor.suppliers.<CODE>.*}. */
public class SupplierProperties {

    private final FileDrop fileDrop = new FileDrop();
    private RecordFormat format = RecordFormat.CSV;
    private char csvDelimiter = ',';
    private Charset charset = StandardCharsets.UTF_8;
    /**
     * Hex SHA-256 of each API key this supplier (or partner) may use over HTTP; several allow rotation.
     * The key itself is never configured, stored or logged.
     */
    private List<String> apiKeySha256 = new ArrayList<>();

    public FileDrop getFileDrop() { return fileDrop; }
    public List<String> getApiKeySha256() { return apiKeySha256; }
    public void setApiKeySha256(List<String> apiKeySha256) { this.apiKeySha256 = apiKeySha256; }
    public RecordFormat getFormat() { return format; }
    public void setFormat(RecordFormat format) { this.format = format; }
    public char getCsvDelimiter() { return csvDelimiter; }
    public void setCsvDelimiter(char csvDelimiter) { this.csvDelimiter = csvDelimiter; }
    public Charset getCharset() { return charset; }
    public void setCharset(Charset charset) { this.charset = charset; }

    public RecordReader openRecords(InputStream in) {
        return format.open(in, charset, csvDelimiter);
    }

    public enum ReadLock {
        /** Take a file once its size and modification time stop changing for {@code min-age}. */
        CHANGED,
        /** Take a file only once its marker file ({@code <name><done-file-suffix>}) exists. */
        DONE_FILE
    }

    /** {@code ingestor.suppliers.<CODE>.file-drop.*}: the supplier's folder under the inbox. */
    public static class FileDrop {
        private boolean enabled = true;
        private ReadLock readLock = ReadLock.CHANGED;
        private String doneFileSuffix = ".done";
        /** A file must be unchanged for this long before it is taken (read lock {@code changed}). */
        private Duration minAge = Duration.ofSeconds(1);
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
}
