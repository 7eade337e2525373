package dev.ingestor.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ingestor.config.JsonNesting;
import dev.ingestor.config.RecordFormat;
import dev.ingestor.config.SupplierProperties;
import dev.ingestor.support.ChildJvm;
import dev.ingestor.support.SlowTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every record of a file is bounded while it is read, whatever its shape: a record over the size or field limit
 * is quarantined naming the limit, with its first characters and its size, and the records after it are read.
 */
@Timeout(120)
class RecordLimitsTest {

    private static final RecordLimits SMALL = new RecordLimits(100, RecordLimits.GLOBAL_SIZE, 10,
            RecordLimits.GLOBAL_FIELDS);

    private static List<Validated> read(RecordFormat format, InputStream file, RecordMapping mapping,
            RecordLimits limits) {
        List<Validated> out = new ArrayList<>();
        try (RecordReader reader = RecordReader.open(format, file, StandardCharsets.UTF_8, ',', mapping, limits)) {
            reader.forEachRemaining(r -> out.add(DeliveryAdviceValidator.validate(r)));
        }
        return out;
    }

    private static List<Validated> read(String shape, long huge, RecordLimits limits) {
        return read(HugeRecordFiles.format(shape), HugeRecordFiles.file(shape, huge), RecordMapping.NONE, limits);
    }

    private static InputStream text(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Each shape of a 100 MB record read in a JVM of 48 MB of heap, where the record alone (200 MB as characters)
     * cannot fit: the file ends with the records around it valid and the huge one quarantined naming the limit.
     */
    // slow tier: large files
    @SlowTest
    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "csv-field;         2;3;100004;ingestor.intake.max-record-size",
            "csv-line;          2;3;4;ingestor.intake.max-record-size",
            "jsonl-fields;      1;2;3;ingestor.intake.max-record-size",
            "jsonl-line;        1;2;3;ingestor.intake.max-record-size",
            "json-array;        1;2;3;ingestor.intake.max-record-size",
            "json-array-fields; 1;2;3;ingestor.intake.max-fields-per-record"})
    void aHugeRecordOfEachShapeIsQuarantinedInASmallHeap(String shape, long first, long second, long third,
            String limit)
            throws Exception {
        ChildJvm jvm = ChildJvm.of(HugeRecordFiles.class).options("-Xmx48m").arguments(shape);
        if (shape.endsWith("-fields") && shape.startsWith("json-array")) {
            // a size limit above the record's size, so only the count of its fields can stop it
            jvm.arguments("1000000000", "1000");
        }
        ChildJvm.Run run = jvm.run(Duration.ofSeconds(100));
        String output = run.output();
        assertThat(run.ended()).isTrue();
        assertThat(run.exitCode()).as(output).isZero();
        List<String> records = output.lines().filter(l -> l.matches("\\d+\\|.*")).toList();
        assertThat(records).as(output).hasSize(3);
        assertThat(records.get(0)).isEqualTo("1|" + first + "|VALID|");
        assertThat(records.get(1)).startsWith("2|" + second + "|QUARANTINED|").contains("(" + limit + ")");
        assertThat(records.get(2)).isEqualTo("3|" + third + "|VALID|");
        assertThat(output).contains("max heap");
    }

    /**
     * Many small things that each fit, in a 100 MB file read in 48 MB of heap: comment lines before a record (the
     * CSV parser keeps a record's comments together) and JSON field names each of its own (Jackson can keep the names
     * it reads in a table its parsers share). None is held together with the others.
     */
    // slow tier: large files
    @SlowTest
    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {"csv-comments; 3; 100004", "jsonl-names; 1668; 1668"})
    void manySmallThingsOfAFileAreNotHeldTogetherInASmallHeap(String shape, int records, long lastLine)
            throws Exception {
        ChildJvm.Run run = ChildJvm.of(HugeRecordFiles.class).options("-Xmx48m").arguments(shape)
                .run(Duration.ofSeconds(100));
        String output = run.output();
        assertThat(run.ended()).isTrue();
        assertThat(run.exitCode()).as(output.length() > 4000 ? output.substring(output.length() - 4000) : output)
                .isZero();
        List<String> read = output.lines().filter(l -> l.matches("\\d+\\|.*")).toList();
        assertThat(read).hasSize(records);
        assertThat(read.get(records - 1)).startsWith(records + "|" + lastLine + "|");
        assertThat(output).contains("max heap");
    }

    @Test
    void aCsvValueOverTheLimitIsCutAndTheLinesAfterItKeepTheirNumbers() {
        List<Validated> records = read("csv-field", 5_000, SMALL);
        assertThat(records).hasSize(3);
        assertThat(records.get(0).isValid()).isTrue();
        Validated big = records.get(1);
        assertThat(big.reason()).isEqualTo("line 3 is larger than the limit of 100 characters"
                + " (ingestor.intake.max-record-size): 5019 characters; only its first 1000 are kept");
        String kept = big.raw().fields().get(RecordLimits.FIRST_CHARACTERS);
        assertThat(kept).startsWith("A-2,xxx").hasSizeLessThanOrEqualTo(100);
        assertThat(big.raw().fields()).hasSize(1);
        // the five line breaks inside the value were dropped, not forgotten
        assertThat(records.get(2).isValid()).isTrue();
        assertThat(records.get(2).raw().line()).isEqualTo(9);
    }

    @Test
    void aCsvRecordWithMoreFieldsThanTheLimitIsQuarantinedNamingIt() {
        String wide = "A-2,S,2,2026-12-01" + ",x".repeat(20) + "\n";
        List<Validated> records = read(RecordFormat.CSV, text(HugeRecordFiles.HEADER + HugeRecordFiles.FIRST_CSV + wide
                + HugeRecordFiles.LAST_CSV), RecordMapping.NONE, SMALL);
        assertThat(records).hasSize(3);
        assertThat(records.get(1).reason()).startsWith("line 3 has more than 10 fields, the limit"
                + " (ingestor.intake.max-fields-per-record): 24 fields in 58 characters");
        assertThat(records.get(2).isValid()).isTrue();
        assertThat(records.get(2).raw().line()).isEqualTo(4);
    }

    @Test
    void aCsvHeaderOverALimitMakesTheFileUnreadableNamingIt() {
        assertThatThrownBy(() -> read(RecordFormat.CSV, text("source_id,sku,quantity,delivery_date,"
                + "c".repeat(200) + "\n" + HugeRecordFiles.FIRST_CSV), RecordMapping.NONE, SMALL))
                .isInstanceOf(UnreadableFileException.class)
                .hasMessage("the CSV header row is larger than the limit of 100 characters"
                        + " (ingestor.intake.max-record-size): 237 characters");
        assertThatThrownBy(() -> read(RecordFormat.CSV, text("source_id,sku,quantity,delivery_date" + ",c".repeat(20)
                + "\n" + HugeRecordFiles.FIRST_CSV), RecordMapping.NONE, SMALL))
                .isInstanceOf(UnreadableFileException.class)
                .hasMessageContaining("names more than 10 columns, the limit (ingestor.intake.max-fields-per-record)");
    }

    @Test
    void aHugeSkippedLineAndAHugeCommentAreReadPast() {
        SupplierProperties.Mapping layout = new SupplierProperties.Mapping();
        layout.setHeader(false);
        layout.setColumns(List.of("source_id", "sku", "quantity", "delivery_date"));
        layout.setSkipLines(1);
        layout.setComment('#');
        InputStream file = new GeneratedFile().repeat("t", 10_000).text("\r\n# ").repeat("c", 10_000)
                .text("\nA-1,S,1,2026-12-01\n#\"\nA-2,S,2,2026-12-01\n");
        List<Validated> records = read(RecordFormat.CSV, file, RecordMapping.of("T", layout), SMALL);
        assertThat(records).extracting(Validated::isValid).containsExactly(true, true);
        assertThat(records).extracting(r -> r.raw().line()).containsExactly(3L, 5L);
    }

    @Test
    void aQuotedValueCutAfterAnEscapedQuoteStillEndsItsRecord() {
        String quoted = "A-2,\"" + "ab\"\"".repeat(60) + "\",2,2026-12-01\n";
        List<Validated> records = read(RecordFormat.CSV,
                text(HugeRecordFiles.HEADER + quoted + HugeRecordFiles.LAST_CSV),
                RecordMapping.NONE, SMALL);
        assertThat(records).hasSize(2);
        assertThat(records.get(0).reason()).contains("(ingestor.intake.max-record-size): 259 characters");
        assertThat(records.get(1).isValid()).isTrue();
    }

    /**
     * A quote after white space opens a quoted value for the limits as for the parser: its delimiters are no
     * fields, and a cut inside it closes it, so the line breaks in it are counted and the records after it read.
     */
    @Test
    void aQuotedValueAfterASpaceIsOneValueForTheLimitsAsForTheParser() {
        String commas = "A-2, \"" + "a,".repeat(20) + "b\", 2, 2026-12-01\n";
        List<Validated> wide = read(RecordFormat.CSV, text(HugeRecordFiles.HEADER + commas + HugeRecordFiles.LAST_CSV),
                RecordMapping.NONE, SMALL);
        assertThat(wide).hasSize(2);
        assertThat(wide.get(0).isValid()).as(wide.get(0).reason()).isTrue();
        assertThat(wide.get(0).advice().sku()).isEqualTo("a,".repeat(20) + "b");
        String lines = "A-2, \"" + ("x".repeat(40) + "\n").repeat(5) + "\", 2, 2026-12-01\n";
        List<Validated> records = read(RecordFormat.CSV, text(HugeRecordFiles.HEADER + HugeRecordFiles.FIRST_CSV
                + lines + HugeRecordFiles.LAST_CSV), RecordMapping.NONE, SMALL);
        assertThat(records).hasSize(3);
        assertThat(records.get(1).reason()).isEqualTo("line 3 is larger than the limit of 100 characters"
                + " (ingestor.intake.max-record-size): 227 characters; only its first 1000 are kept");
        assertThat(records.get(2).isValid()).isTrue();
        assertThat(records.get(2).raw().line()).isEqualTo(9);
    }

    /** The line break a cut falls on is dropped with the rest of its value, and counted as those after it are. */
    @Test
    void aCutOnALineBreakInAQuotedValueKeepsTheLinesAfterIt() {
        // the 101st character of the record, one past the limit, is the line break inside its quoted value
        String record = "A-2,\"" + "x".repeat(95) + "\ny\",2,2026-12-01\n";
        List<Validated> records = read(RecordFormat.CSV, text(HugeRecordFiles.HEADER + HugeRecordFiles.FIRST_CSV
                + record + HugeRecordFiles.LAST_CSV), RecordMapping.NONE, SMALL);
        assertThat(records).extracting(r -> r.raw().line()).containsExactly(2L, 3L, 5L);
        assertThat(records.get(1).reason()).isEqualTo("line 3 is larger than the limit of 100 characters"
                + " (ingestor.intake.max-record-size): 116 characters; only its first 1000 are kept");
    }

    @Test
    void aJsonLineWithMoreFieldsThanTheLimitIsQuarantinedNamingIt() {
        RecordLimits manyCharacters = new RecordLimits(1_000_000, RecordLimits.GLOBAL_SIZE, 10,
                RecordLimits.GLOBAL_FIELDS);
        List<Validated> records = read("jsonl-fields", 200, manyCharacters);
        assertThat(records).hasSize(3);
        assertThat(records.get(1).reason()).startsWith("line 2 has more than 10 fields, the limit"
                + " (ingestor.intake.max-fields-per-record)");
        assertThat(records.get(1).raw().fields().get(RecordLimits.FIRST_CHARACTERS))
                .startsWith("{\"source_id\":\"A-2\",\"f0\":1");
        assertThat(records.get(2).isValid()).isTrue();
    }

    @Test
    void aJsonLineOverTheSizeLimitKeepsItsFirstCharactersAndSize() {
        List<Validated> records = read("jsonl-line", 5_000, SMALL);
        assertThat(records.get(1).reason()).isEqualTo("line 2 is larger than the limit of 100 characters"
                + " (ingestor.intake.max-record-size): 5029 characters; only its first 1000 are kept");
        assertThat(records.get(1).raw().fields().get(RecordLimits.FIRST_CHARACTERS))
                .isEqualTo("{\"source_id\":\"A-2\",\"note\":\"" + "y".repeat(73));
        assertThat(records.get(2).isValid()).isTrue();
    }

    /**
     * A document over several lines whose first line is over the size limit is still one document, not JSON Lines:
     * rejected whole, never read line by line with a whole record on a line of its own applied. A first line over
     * the limit that ends with its record, however it was cut, is that record's problem only.
     */
    @Test
    void aJsonDocumentWhoseFirstLineIsOverTheLimitIsNotReadAsJsonLines() {
        String document = "{\"order\": {\"note\": \"" + "n".repeat(200) + "\", \"lines\": [\n"
                + HugeRecordFiles.FIRST_JSON + ",\n" + HugeRecordFiles.LAST_JSON + "\n]}}\n";
        assertThatThrownBy(() -> read(RecordFormat.JSON, text(document), RecordMapping.NONE, SMALL))
                .isInstanceOf(UnreadableFileException.class)
                .hasMessageStartingWith("line 1 ends inside its JSON value: the file is one JSON document over several"
                        + " lines, not JSON Lines");
        // cut between two fields, or in a string holding a bracket and quotes, the line still ends with its record
        StringBuilder wide = new StringBuilder("{\"source_id\":\"A-0\"");
        for (int i = 0; i < 30; i++) {
            wide.append(",\"f").append(i).append("\":[").append(i).append(']');
        }
        List<String> longLines = List.of(wide + "}",
                "{\"source_id\":\"A-0\",\"note\":\"{" + "y".repeat(200) + "\\\"[\\\"\",\"x\":1}");
        for (String first : longLines) {
            List<Validated> records = read(RecordFormat.JSON, text(first + "\n" + HugeRecordFiles.LAST_JSON + "\n"),
                    RecordMapping.NONE, SMALL);
            assertThat(records).extracting(Validated::isValid).as(first).containsExactly(false, true);
            assertThat(records.get(0).reason()).startsWith("line 1 is larger than the limit of 100 characters");
        }
    }

    /**
     * A first line over the limit whose record is broken JSON, a bracket closed by the other kind (an array never
     * closed) or nested deeper than JSON may be, is that record's problem, as the same line within the limit is: it is
     * quarantined and the file goes on, not rejected whole as a document over several lines.
     */
    @Test
    void aBrokenJsonRecordOnAFirstLineOverTheLimitIsThatRecordsProblemOnly() {
        List<String> longLines = List.of("{\"source_id\":\"A-0\",\"a\":[1, \"note\":\"" + "y".repeat(200) + "\"}",
                "{\"source_id\":\"A-0\",\"a\":" + "[".repeat(JsonNesting.MAX_DEPTH + 10));
        for (String first : longLines) {
            List<Validated> records = read(RecordFormat.JSON, text(first + "\n" + HugeRecordFiles.LAST_JSON + "\n"),
                    RecordMapping.NONE, SMALL);
            assertThat(records).extracting(Validated::isValid).as(first).containsExactly(false, true);
            assertThat(records.get(0).reason()).startsWith("line 1 is larger than the limit of 100 characters");
        }
    }

    @Test
    void aRecordOfAJsonArrayOverALimitIsReadPastAndTheArrayGoesOn() {
        List<Validated> records = read("json-array", 5_000, SMALL);
        assertThat(records).hasSize(3);
        assertThat(records.get(1).reason()).startsWith("line 2 is larger than the limit of 100 characters"
                + " (ingestor.intake.max-record-size): 5029 characters");
        assertThat(records.get(1).raw().fields().get(RecordLimits.FIRST_CHARACTERS))
                .startsWith("{\"source_id\":\"A-2\",\"note\":\"yyy");
        assertThat(records.get(2).isValid()).isTrue();
        List<Validated> wide = read("json-array-fields", 200, new RecordLimits(1_000_000, RecordLimits.GLOBAL_SIZE, 10,
                RecordLimits.GLOBAL_FIELDS));
        assertThat(wide.get(1).reason())
                .startsWith("line 2 has more than 10 fields, the limit (ingestor.intake.max-fields-per-record)");
        assertThat(wide.get(2).isValid()).isTrue();
    }

    @Test
    void aHugeStringBesideTheRecordsOfADocumentIsNoRecordsConcern() {
        SupplierProperties.Mapping layout = new SupplierProperties.Mapping();
        layout.setRecordsPath("order.lines");
        InputStream file = new GeneratedFile().text("{\"order\":{\"note\":\"").repeat("n", 5_000)
                .text("\",\"lines\":[" + HugeRecordFiles.FIRST_JSON + "," + HugeRecordFiles.LAST_JSON + "]}}");
        List<Validated> records = read(RecordFormat.JSON, file, RecordMapping.of("T", layout), SMALL);
        assertThat(records).extracting(Validated::isValid).containsExactly(true, true);
    }

    @Test
    void recordsWithinTheLimitsAreReadAsBefore() {
        String json = "[{\"source_id\":\"A-1\",\"sku\":\"S\",\"quantity\":1,\"delivery_date\":\"2026-12-01\",\"n\":1.50,"
                + "\"big\":123456789012345678901234567890,\"e\":1e3,\"nested\":{\"a\":[1,\"b\"]},\"t\":true,\"z\":null}]";
        RawRecord record;
        try (RecordReader reader = RecordReader.open(RecordFormat.JSON, text(json), StandardCharsets.UTF_8, ',')) {
            record = reader.next();
        }
        assertThat(record.fields()).containsEntry("n", "1.5").containsEntry("big", "123456789012345678901234567890")
                .containsEntry("e", "1000").containsEntry("nested", "{\"a\":[1,\"b\"]}").containsEntry("t", "true")
                .containsEntry("z", null);
    }
}
