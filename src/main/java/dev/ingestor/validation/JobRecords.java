package dev.ingestor.validation;

import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.SupplierProperties;
import dev.ingestor.intake.IntakeSettings;
import dev.ingestor.intake.RawStore;
import dev.ingestor.job.ImportJob;
import org.springframework.stereotype.Component;

/**
 * Opens a job's stored file as records: a file in its supplier's format, through its mapping and hook; an HTTP item
 * batch as its items ({@link ItemLines}). Both stages read a job through this.
 */
@Component
public class JobRecords {

    private final RawStore rawStore;
    private final IngestorProperties properties;
    /** Built at start, so a supplier's mapping that cannot work stops the start, naming the property. */
    private final Map<String, RecordMapping> mappings;
    /** Built at start too, so a limit that cannot work stops the start, naming the property. */
    private final Map<String, RecordLimits> limits;
    private final RecordLimits installationLimits;
    private final SupplierHooks hooks;

    public JobRecords(RawStore rawStore, IngestorProperties properties, IntakeSettings intake, SupplierHooks hooks) {
        this.rawStore = rawStore;
        this.properties = properties;
        this.hooks = hooks;
        Map<String, RecordMapping> built = new HashMap<>();
        properties.getSuppliers().forEach((code, supplier) -> built.put(code, RecordMapping.of(code, supplier)));
        this.mappings = Map.copyOf(built);
        Map<String, RecordLimits> bounded = new HashMap<>();
        properties.getSuppliers().keySet()
                .forEach(code -> bounded.put(code, RecordLimits.of(properties, intake, code)));
        this.limits = Map.copyOf(bounded);
        this.installationLimits = RecordLimits.of(properties, intake, "");
    }

    /** The mapping of {@code supplier}'s own layout (none: the record's names and formats). */
    public RecordMapping mapping(String supplier) {
        return mappings.getOrDefault(supplier, RecordMapping.NONE);
    }

    /** How large one record of {@code supplier}'s files may be, and how many fields it may have. */
    public RecordLimits limits(String supplier) {
        return limits.getOrDefault(supplier, installationLimits);
    }

    public RecordReader open(ImportJob job) {
        SupplierProperties supplier = properties.getSuppliers().get(job.supplier());
        if (supplier == null) {
            throw new UnreadableFileException(
                    "supplier " + job.supplier() + " is no longer configured, so its format is unknown");
        }
        InputStream in = rawStore.open(job.key());
        if (job.isItemBatch()) {
            // the batch's items are the record itself, as when it is applied while its caller waits
            return ItemLines.open(in);
        }
        try {
            RecordReader reader = RecordReader.open(supplier.getFormat(), in, supplier.getCharset(),
                    supplier.getCsvDelimiter(), mapping(job.supplier()), limits(job.supplier()));
            // after the mapping: a supplier's route reshapes records already in the record's names and formats
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
