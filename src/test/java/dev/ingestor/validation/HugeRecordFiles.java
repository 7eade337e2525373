package dev.ingestor.validation;

import java.nio.charset.StandardCharsets;

import dev.ingestor.config.RecordFormat;

/**
 * Files of three records whose second one is huge, in each shape a supplier could send it, made as they are read.
 * Run as a program ({@code main}) in a JVM with a small heap, it reads one of them through the readers with the
 * default limits and prints each record's outcome: a reader that held the huge record whole would run out of memory.
 */
final class HugeRecordFiles {

    static final String HEADER = "source_id,sku,quantity,delivery_date\n";
    static final String FIRST_CSV = "A-1,S,1,2026-12-01\n";
    static final String LAST_CSV = "A-3,S,3,2026-12-01\n";
    static final String FIRST_JSON = "{\"source_id\":\"A-1\",\"sku\":\"S\",\"quantity\":1,\"delivery_date\":\"2026-12-01\"}";
    static final String LAST_JSON = "{\"source_id\":\"A-3\",\"sku\":\"S\",\"quantity\":3,\"delivery_date\":\"2026-12-01\"}";
    /** 100 MB: 200 MB as Java characters, more than the small heap holds. */
    static final long HUGE = 100_000_000L;

    private HugeRecordFiles() {
    }

    /** A shape's format and file: the second record is {@code huge} characters or more. */
    static RecordFormat format(String shape) {
        return shape.startsWith("csv") ? RecordFormat.CSV : RecordFormat.JSON;
    }

    static GeneratedFile file(String shape, long huge) {
        return switch (shape) {
            // one quoted value with line breaks in it: 1,000 characters a line
            case "csv-field" -> new GeneratedFile().text(HEADER + FIRST_CSV + "A-2,\"")
                    .repeat("x".repeat(999) + "\n", huge / 1000).text("\",2,2026-12-01\n" + LAST_CSV);
            // one line of one unquoted value
            case "csv-line" -> new GeneratedFile().text(HEADER + FIRST_CSV + "A-2,")
                    .repeat("z".repeat(1000), huge / 1000).text(",2,2026-12-01\n" + LAST_CSV);
            // a JSON line of a million (or more) small fields, each with its own name
            case "jsonl-fields" -> new GeneratedFile().text(FIRST_JSON + "\n{\"source_id\":\"A-2\"")
                    .numbered(",\"f%d\":1", huge / 10).text("}\n" + LAST_JSON + "\n");
            // one enormous JSON line: a string value without end
            case "jsonl-line" -> new GeneratedFile().text(FIRST_JSON + "\n{\"source_id\":\"A-2\",\"note\":\"")
                    .repeat("y".repeat(1000), huge / 1000).text("\"}\n" + LAST_JSON + "\n");
            // the same string in a record of a JSON array
            case "json-array" -> new GeneratedFile().text("[" + FIRST_JSON + ",\n{\"source_id\":\"A-2\",\"note\":\"")
                    .repeat("y".repeat(1000), huge / 1000).text("\"},\n" + LAST_JSON + "]");
            // a record of a JSON array with a million (or more) small fields
            case "json-array-fields" -> new GeneratedFile().text("[" + FIRST_JSON + ",\n{\"source_id\":\"A-2\"")
                    .numbered(",\"f%d\":1", huge / 10).text("},\n" + LAST_JSON + "]");
            // many comment lines before a record, 1,000 characters each (read with '#' as the comment marker)
            case "csv-comments" -> new GeneratedFile().text(HEADER + FIRST_CSV)
                    .repeat("#" + "c".repeat(998) + "\n", huge / 1000).text("A-2,S,2,2026-12-01\n" + LAST_CSV);
            // JSON lines of small records, each with a field of a long name of its own
            case "jsonl-names" -> new GeneratedFile().text(FIRST_JSON + "\n")
                    .numbered(
                            "{\"source_id\":\"N-%d\",\"sku\":\"S\",\"quantity\":1,\"delivery_date\":\"2026-12-01\",\"%d"
                                    + "n".repeat(60_000) + "\":1}\n",
                            huge / 60_000)
                    .text(LAST_JSON + "\n");
            default -> throw new IllegalArgumentException(shape);
        };
    }

    /** The mapping a shape is read with: '#' marks a comment line of {@code csv-comments}. */
    static RecordMapping mapping(String shape) {
        if (!shape.equals("csv-comments")) {
            return RecordMapping.NONE;
        }
        dev.ingestor.config.SupplierProperties.Mapping mapping = new dev.ingestor.config.SupplierProperties.Mapping();
        mapping.setComment('#');
        return RecordMapping.of("HUGE", mapping);
    }

    /**
     * Prints {@code index|line|outcome|reason} for each record of the shape {@code args[0]}, read with the default
     * limits or with {@code args[1]} characters and {@code args[2]} fields.
     */
    public static void main(String[] args) {
        String shape = args[0];
        RecordLimits limits = args.length < 3
                ? RecordLimits.DEFAULT
                : new RecordLimits(Long.parseLong(args[1]),
                        RecordLimits.GLOBAL_SIZE, Integer.parseInt(args[2]), RecordLimits.GLOBAL_FIELDS);
        try (RecordReader reader = RecordReader.open(format(shape), file(shape, HUGE), StandardCharsets.UTF_8, ',',
                mapping(shape), limits)) {
            while (reader.hasNext()) {
                Validated record = DeliveryAdviceValidator.validate(reader.next());
                RawRecord raw = record.raw();
                System.out.println(raw.index() + "|" + raw.line() + "|" + (record.isValid() ? "VALID" : "QUARANTINED")
                        + "|" + (record.isValid() ? "" : record.reason()));
            }
        }
        System.out.println("max heap " + Runtime.getRuntime().maxMemory());
    }
}
