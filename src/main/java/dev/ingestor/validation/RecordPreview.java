package dev.ingestor.validation;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.SupplierProperties;
import org.springframework.stereotype.Component;

/**
 * What the pipeline would make of a sample of a supplier's file, with no job and no effect: for each of the first
 * records, the fields as the supplier wrote them, the record after the supplier's mapping, and the validation
 * outcome with its reason. It reads the sample exactly as the stages read a stored file (the same readers, the same
 * mapping, the supplier's route hook, the same rules), so an engineer onboarding a supplier sees the real answer, not a
 * second opinion.
 */
@Component
public class RecordPreview {

    private final IngestorProperties properties;
    private final JobRecords jobRecords;
    private final SupplierHooks hooks;

    public RecordPreview(IngestorProperties properties, JobRecords jobRecords, SupplierHooks hooks) {
        this.properties = properties;
        this.jobRecords = jobRecords;
        this.hooks = hooks;
    }

    /**
     * One record of the sample: the fields as read (names in lower case, as every reader matches them), the record
     * after the mapping, and VALID or QUARANTINED with the reason a job would store.
     */
    public record Row(long line, String where, Map<String, String> supplierFields, Map<String, String> record,
            String outcome, String reason) {
    }

    /**
     * The preview of a sample. {@code fileOutcome} is REJECTED (with {@code reason}) when the file as a whole
     * would be refused, as a job of it would be; {@code more} says records follow the ones shown.
     */
    public record Preview(String supplier, String format, List<Row> records, boolean more, String fileOutcome,
            String reason) {
    }

    /** Empty when {@code supplier} is not configured. At most {@code limit} records are read. */
    public Optional<Preview> preview(String supplier, InputStream sample, int limit) {
        SupplierProperties settings = properties.getSuppliers().get(supplier);
        if (settings == null) {
            return Optional.empty();
        }
        RecordMapping mapping = jobRecords.mapping(supplier);
        // the supplier's route hook too, as a job's records pass through it after the mapping
        java.util.function.UnaryOperator<RawRecord> hook = hooks
                .hook(supplier, null).<java.util.function.UnaryOperator<RawRecord>>map(h -> h::apply).orElse(r -> r);
        List<Row> rows = new ArrayList<>();
        boolean more = false;
        String rejected = null;
        try (RecordReader records = RecordReader.openAsWritten(settings.getFormat(), sample, settings.getCharset(),
                settings.getCsvDelimiter(), mapping, jobRecords.limits(supplier))) {
            while (records.hasNext()) {
                if (rows.size() == limit) {
                    more = true;
                    break;
                }
                RawRecord written = records.next();
                RawRecord mapped = written.isBroken() ? written : hook.apply(mapping.apply(written));
                Validated validated = DeliveryAdviceValidator.validate(mapped);
                rows.add(new Row(written.line(), written.where(), copy(written.fields()), copy(mapped.fields()),
                        validated.isValid() ? "VALID" : "QUARANTINED", validated.reason()));
            }
            if (rows.isEmpty() && !more) {
                rejected = UnreadableFileException.noRecords().getMessage();
            }
        } catch (UnreadableFileException e) {
            rejected = e.getMessage();
        }
        return Optional.of(new Preview(supplier, settings.getFormat().name(), rows, more,
                rejected == null ? null : "REJECTED", rejected));
    }

    private static Map<String, String> copy(Map<String, String> fields) {
        return new LinkedHashMap<>(fields);
    }
}
