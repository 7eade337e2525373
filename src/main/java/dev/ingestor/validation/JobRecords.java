package dev.ingestor.validation;

import java.io.InputStream;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.SupplierProperties;
import dev.ingestor.intake.RawStore;
import dev.ingestor.job.ImportJob;
import org.springframework.stereotype.Component;

/** Opens a job's stored file as records in its supplier's format; both stages read a job through this. */
@Component
public class JobRecords {

    private final RawStore rawStore;
    private final IngestorProperties properties;
    private final SupplierHooks hooks;

    public JobRecords(RawStore rawStore, IngestorProperties properties, SupplierHooks hooks) {
        this.rawStore = rawStore;
        this.properties = properties;
        this.hooks = hooks;
    }

    public RecordReader open(ImportJob job) {
        SupplierProperties supplier = properties.getSuppliers().get(job.supplier());
        if (supplier == null) {
            throw new UnreadableFileException("supplier " + job.supplier() + " is no longer configured, so its format is unknown");
        }
        InputStream in = rawStore.open(job.key());
        try {
            RecordReader reader = RecordReader.open(job.formatOr(supplier.getFormat()), in, job.format() != null ? java.nio.charset.StandardCharsets.UTF_8
                    : supplier.getCharset(), supplier.getCsvDelimiter());
            return hooks.wrap(job.supplier(), job.id(), reader);
        } catch (RuntimeException e) {
            try {
                in.close();
            } catch (java.io.IOException ignored) {
                // already failing
            }
            throw e;
        }
    }
}
