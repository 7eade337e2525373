package dev.ingestor.validation;

import java.util.Map;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.SupplierProperties;
import dev.ingestor.intake.IntakeSettings;
import dev.ingestor.logging.SafeText;

/**
 * How large one record of a supplier's file may be, in characters of its text, and how many fields it may have,
 * with the properties that say so. The readers check both while reading, so a record over either is never held
 * whole: it becomes a record quarantined naming the limit, keeping only its first characters and its size.
 */
record RecordLimits(long maxSize, String sizeProperty, int maxFields, String fieldsProperty) {

    static final String GLOBAL_SIZE = "ingestor.intake.max-record-size";
    static final String GLOBAL_FIELDS = "ingestor.intake.max-fields-per-record";
    /** The defaults of {@link IntakeSettings}. */
    public static final RecordLimits DEFAULT = new RecordLimits(64 * 1024, GLOBAL_SIZE, 1000, GLOBAL_FIELDS);
    /** The field a record over a limit keeps: its first characters, as the supplier wrote them. */
    public static final String FIRST_CHARACTERS = "first_characters";
    /** How many of a record's first characters are kept when it is over a limit. */
    static final int KEPT = 1000;

    public RecordLimits {
        if (maxSize < 1) {
            throw new IllegalStateException(sizeProperty + " must be at least 1 byte, not " + maxSize);
        }
        if (maxFields < 1) {
            throw new IllegalStateException(fieldsProperty + " must be at least 1, not " + maxFields);
        }
    }

    /** The limits of supplier {@code code}: its own where it sets them, else the installation's. */
    public static RecordLimits of(IngestorProperties properties, IntakeSettings intake, String code) {
        SupplierProperties supplier = properties.getSuppliers().get(code);
        String own = "ingestor.suppliers." + code + ".";
        boolean ownSize = supplier != null && supplier.getMaxRecordSize() != null;
        boolean ownFields = supplier != null && supplier.getMaxFieldsPerRecord() != null;
        return new RecordLimits(ownSize ? supplier.getMaxRecordSize().toBytes() : intake.getMaxRecordSize().toBytes(),
                ownSize ? own + "max-record-size" : GLOBAL_SIZE,
                ownFields ? supplier.getMaxFieldsPerRecord() : intake.getMaxFieldsPerRecord(),
                ownFields ? own + "max-fields-per-record" : GLOBAL_FIELDS);
    }

    /**
     * The record at {@code index}/{@code line} was cut while being read: {@code size} characters in all, of
     * {@code fields} fields (counted as far as they could be), of which {@code start} are its first characters.
     */
    RawRecord overLimit(long index, long line, long size, long fields, String start) {
        String problem = fields > maxFields
                ? "has more than " + maxFields + " fields, the limit (" + fieldsProperty + "): " + fields
                        + " fields in "
                        + size + " characters; only its first " + KEPT + " characters are kept"
                : "is larger than the limit of " + maxSize + " characters (" + sizeProperty + "): " + size
                        + " characters; only its first " + KEPT + " are kept";
        return new RawRecord(index, line, Map.of(FIRST_CHARACTERS, SafeText.of(start, KEPT)), problem);
    }
}
