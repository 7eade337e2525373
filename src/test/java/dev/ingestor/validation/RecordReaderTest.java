package dev.ingestor.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import dev.ingestor.config.RecordFormat;
import org.junit.jupiter.api.Test;

class RecordReaderTest {

    private static List<Validated> read(RecordFormat format, String text, char delimiter) {
        List<Validated> out = new ArrayList<>();
        try (RecordReader reader = RecordReader.open(format,
                new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8, delimiter)) {
            reader.forEachRemaining(r -> out.add(DeliveryAdviceValidator.validate(r)));
        }
        return out;
    }

    @Test
    void csvRecordsAreValidatedWithLineNumbersAndExtraColumnsKept() {
        List<Validated> records = read(RecordFormat.CSV, """
                source_id;source_version;sku;quantity;delivery_date;colour
                A-1;3;SKU-1;10;2026-12-01;red
                A-2;-1;;x;2026-02-30;blue
                A-3;1;SKU
                """, ';');
        assertThat(records).hasSize(3);
        assertThat(records.get(0).advice()).isEqualTo(new DeliveryAdvice("A-1", 3L, "SKU-1", 10,
                java.time.LocalDate.of(2026, 12, 1), java.util.Map.of("colour", "red")));
        assertThat(records.get(1).reason())
                .isEqualTo("line 3: source_version: '-1' is negative; it must be a whole number 0 or greater;"
                        + " sku: missing; quantity: 'x' is not a whole number greater than 0;"
                        + " delivery_date: '2026-02-30' is not an ISO date (YYYY-MM-DD)");
        assertThat(records.get(2).reason()).isEqualTo("line 4 has 3 values but the header names 6 columns");
    }

    /**
     * A C1 control character in a value is what a Windows-1252 file read as ISO-8859-1 holds (its dashes, quotes, the
     * euro sign): the reason says so, naming the setting. A C0 one says nothing of it.
     */
    @Test
    void aC1ControlCharacterInAValueNamesTheSuppliersCharset() {
        byte[] windows1252 = "source_id,sku,quantity,delivery_date,note\nW-1,SKU,1,2026-12-01,K\u00fchlware \u2013 oben\n"
                .getBytes(java.nio.charset.Charset.forName("windows-1252"));
        List<Validated> records = new ArrayList<>();
        try (RecordReader reader = RecordReader.open(RecordFormat.CSV, new ByteArrayInputStream(windows1252),
                StandardCharsets.ISO_8859_1, ',')) {
            reader.forEachRemaining(r -> records.add(DeliveryAdviceValidator.validate(r)));
        }
        assertThat(records.get(0).reason()).isEqualTo("line 2: note: contains the control character U+0096"
                + DeliveryAdviceValidator.C1_HINT).contains("ingestor.suppliers.<CODE>.charset");
        assertThat(read(RecordFormat.CSV, "source_id,sku,quantity,delivery_date,note\nW-2,SKU,1,2026-12-01,a\u0007b\n",
                ',').get(0).reason()).isEqualTo("line 2: note: contains the control character U+0007");
    }

    /**
     * White space before a quote is no part of the value (an exporter's {@code , "SKU-1"}): the quote still opens a
     * quoted value, whose quotes are not kept, and whose delimiters and line breaks are the value's own.
     */
    @Test
    void aQuoteAfterSpacesStillOpensAQuotedValue() {
        List<Validated> records = read(RecordFormat.CSV, """
                source_id,sku,quantity,delivery_date,note
                P-1, "SKU-1", 10, 2026-12-01, "a, b"
                P-2,  "SKU-2"  ,\t"2",2026-12-01, "two
                lines"
                P-3,S,3,2026-12-01,x
                """, ',');
        assertThat(records).hasSize(3);
        assertThat(records.get(0).advice()).isEqualTo(new DeliveryAdvice("P-1", null, "SKU-1", 10,
                java.time.LocalDate.of(2026, 12, 1), java.util.Map.of("note", "a, b")));
        assertThat(records.get(1).raw().fields()).containsEntry("sku", "SKU-2").containsEntry("quantity", "2")
                .containsEntry("note", "two\nlines");
        assertThat(records.get(1).reason()).isEqualTo("line 3: note: contains the control character U+000A");
        assertThat(records.get(2).isValid()).isTrue();
        assertThat(records.get(2).raw().line()).isEqualTo(5);
    }

    /**
     * A column the header names not: empty, it is passed over; a value in it quarantines its record naming the
     * column, never dropped unsaid (nor kept under a name two such columns share).
     */
    @Test
    void aValueInAColumnWithNoNameQuarantinesItsRecord() {
        List<Validated> records = read(RecordFormat.CSV, """
                source_id,sku,quantity,delivery_date,,colour, ,
                P-1,S,1,2026-12-01,,red,,
                P-2,S,1,2026-12-01,a,red,,
                P-3,S,1,2026-12-01, ,red,,b
                """, ',');
        assertThat(records).hasSize(3);
        assertThat(records.get(0).advice().attributes()).isEqualTo(java.util.Map.of("colour", "red"));
        assertThat(records.get(0).raw().fields()).doesNotContainKey("");
        assertThat(records.get(1).reason())
                .isEqualTo("line 3 has a value in column 5, which has no name in the header row: 'a'");
        assertThat(records.get(2).reason())
                .isEqualTo("line 4 has a value in column 8, which has no name in the header row: 'b'");
    }

    /**
     * A spreadsheet cell ending in a line break (Alt+Enter) is exported as a quoted value whose line breaks stand at
     * its end or start; the white space around the value is no part of it, but its record still starts on its own
     * line, and so does the next.
     */
    @Test
    void aRecordWhoseQuotedValueStartsOrEndsWithLineBreaksIsNamedByItsOwnLine() {
        List<Validated> records = read(RecordFormat.CSV, "source_id,sku,quantity,delivery_date,note\n"
                + "A-1,SKU,0,2026-12-01,\"handle with care\r\n\r\n\"\n"
                + "A-2,SKU,0,2026-12-01,\"\nfragile \"\n"
                + "A-3,SKU,0,2026-12-01,x\n", ',');
        assertThat(records).extracting(r -> r.raw().line()).containsExactly(2L, 5L, 7L);
        assertThat(records).extracting(r -> r.raw().fields().get("note"))
                .containsExactly("handle with care", "fragile", "x");
    }

    /**
     * White space around a CSV value is no part of it; a control character at its start or end is no white space
     * (a NUL-padded export, a stray BEL), and quarantines its record as one inside the value does.
     */
    @Test
    void aControlCharacterAtTheEdgeOfACsvValueIsNotTrimmedAway() {
        List<Validated> records = read(RecordFormat.CSV, "source_id,sku,quantity,delivery_date\n"
                + "C-1,SKU-1\u0000\u0000,1,2026-12-01\n"
                + "C-2,\"SKU-2\u0000\",1,2026-12-01\n"
                + "C-3,\u0007SKU-3 ,1,2026-12-01\n"
                + "C-4, \" SKU-4\t\r\n\" ,1,2026-12-01\n", ',');
        assertThat(records).extracting(Validated::reason).containsExactly(
                "line 2: sku: contains the control character U+0000",
                "line 3: sku: contains the control character U+0000",
                "line 4: sku: contains the control character U+0007",
                null);
        assertThat(records.get(3).advice().sku()).isEqualTo("SKU-4");
    }

    /**
     * The control characters Java counts as white space (U+000B, U+000C, U+001C to U+001F: the parser drops them
     * around a value outside quotes) are no white space of a value either: at a value's edge, quoted or not, or
     * before its opening quote, they quarantine its record as any other control character does. A character beyond
     * U+FFFF whose second half looks like one of their stand-ins (U+1000B is D800 DC0B) is kept as it is.
     */
    @Test
    void aControlCharacterJavaCallsWhiteSpaceAtTheEdgeOfACsvValueIsNotTrimmedAway() {
        List<Validated> records = read(RecordFormat.CSV, "source_id,sku,quantity,delivery_date\n"
                + "C-1,SKU-1\u001F,1,2026-12-01\n"
                + "C-2,\"SKU-2\u001E\",1,2026-12-01\n"
                + "C-3, \u000BSKU-3,1,2026-12-01\n"
                + "C-4,\"\u000CSKU-4\",1,2026-12-01\n"
                + "C-5,\u001C\"SKU-5\",1,2026-12-01\n"
                + "C-6,SKU-6,1,2026-12-01\u001D\n"
                + "C-7,SKU-\uD800\uDC0B,1,2026-12-01\n", ',');
        assertThat(records).extracting(Validated::reason).containsExactly(
                "line 2: sku: contains the control character U+001F",
                "line 3: sku: contains the control character U+001E",
                "line 4: sku: contains the control character U+000B",
                "line 5: sku: contains the control character U+000C",
                "line 6: sku: contains the control character U+001C",
                "line 7: delivery_date: contains the control character U+001D",
                null);
        assertThat(records.get(6).advice().sku()).isEqualTo("SKU-\uD800\uDC0B");
    }

    /**
     * A column name over 50,000 bytes of UTF-8 (here 25,001 characters, within the record size limit) is more than a
     * reader of the item's record or event takes: its records are quarantined naming the limit.
     */
    @Test
    void aColumnNameOverTheLongestFieldNameQuarantinesItsRecords() {
        String name = "\u00e9".repeat(25_001);
        List<Validated> records = read(RecordFormat.CSV, "source_id,sku,quantity,delivery_date," + name
                + "\nA-1,SKU,1,2026-12-01,x\n", ',');
        assertThat(records.get(0).reason()).startsWith("line 2: field name '\u00e9\u00e9")
                .endsWith("is longer than 50000 bytes (UTF-8), the most a field name may have");
        assertThat(read(RecordFormat.CSV, "source_id,sku,quantity,delivery_date," + "n".repeat(50_000)
                + "\nA-1,SKU,1,2026-12-01,x\n", ',').get(0).isValid()).isTrue();
    }

    @Test
    void aCsvWithoutTheRequiredHeaderIsUnreadable() {
        assertThatThrownBy(() -> read(RecordFormat.CSV, "A-1,SKU,1,2026-12-01\n", ','))
                .isInstanceOf(UnreadableFileException.class).hasMessageContaining("lacks the column(s)");
    }

    @Test
    void bytesThatAreNotTextAreUnreadable() {
        assertThatThrownBy(() -> {
            try (RecordReader reader = RecordReader.open(RecordFormat.CSV,
                    new ByteArrayInputStream(new byte[] {'s', 'o', (byte) 0xff, '\n'}),
                    StandardCharsets.UTF_8, ',')) {
                reader.forEachRemaining(r -> {});
            }
        }).isInstanceOf(UnreadableFileException.class).hasMessageContaining("not valid text");
    }

    /** A byte that is not text is named on its own line, not where the parser stood a block of text before it. */
    @Test
    void aByteThatIsNotTextIsNamedOnItsOwnLine() {
        String record = "{\"source_id\": \"P-%d\", \"sku\": \"S\", \"quantity\": 1, \"delivery_date\": \"2026-12-01\"}";
        java.io.ByteArrayOutputStream csv = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream jsonLines = new java.io.ByteArrayOutputStream();
        java.io.ByteArrayOutputStream array = new java.io.ByteArrayOutputStream();
        array.write('[');
        for (int line = 1; line <= 5000; line++) {
            // the header is line 1
            csv.writeBytes((line == 1 ? "source_id,sku,quantity,delivery_date" : "P-" + line + ",S,1,2026-12-01")
                    .getBytes(StandardCharsets.UTF_8));
            jsonLines.writeBytes(record.formatted(line).getBytes(StandardCharsets.UTF_8));
            array.writeBytes(((line > 1 ? ",\n" : "") + record.formatted(line)).getBytes(StandardCharsets.UTF_8));
            if (line == 4000) {
                csv.write(0xFF);
                jsonLines.write(0xFF);
                array.write(0xFF);
            }
            csv.write('\n');
            jsonLines.write('\n');
        }
        array.write(']');
        for (var file : java.util.List.of(java.util.Map.entry(RecordFormat.CSV, csv),
                java.util.Map.entry(RecordFormat.JSON, jsonLines), java.util.Map.entry(RecordFormat.JSON, array))) {
            assertThatThrownBy(() -> {
                try (RecordReader reader = RecordReader.open(file.getKey(),
                        new ByteArrayInputStream(file.getValue().toByteArray()), StandardCharsets.UTF_8, ',')) {
                    reader.forEachRemaining(r -> {});
                }
            }).isInstanceOf(UnreadableFileException.class)
                    .hasMessage(
                            "the file is not valid text in the supplier's charset (line 4000: byte FF is not UTF-8)");
        }
    }

    @Test
    void aLongSourceIdIsQuarantined() {
        List<Validated> records = read(RecordFormat.JSON, "[{\"source_id\": \"" + "x".repeat(129)
                + "\", \"sku\": \"S\", \"quantity\": 1, \"delivery_date\": \"2026-12-01\"}]", ',');
        assertThat(records.get(0).reason()).contains("source_id: 129 characters, at most 128 allowed");
    }

    /**
     * A line of JSON Lines is one record: two lines run together (a file joined to one whose last line had no line
     * break) or text after a record is that record quarantined, never a second record passed over unseen.
     */
    @Test
    void aJsonLineThatGoesOnAfterItsRecordIsQuarantinedNotCutShort() {
        String a = "{\"source_id\": \"A\", \"sku\": \"S\", \"quantity\": 1, \"delivery_date\": \"2026-12-01\"}";
        String b = a.replace("\"A\"", "\"B\"");
        String c = a.replace("\"A\"", "\"C\"");
        List<Validated> records = read(RecordFormat.JSON,
                a + b + "\n" + c + "\n" + a + " xyz\n" + a + "}\n" + b + "  \n",
                ',');
        assertThat(records).hasSize(5);
        assertThat(records.get(0).reason()).isEqualTo("line 1 holds another JSON value after its record, at column "
                + (a.length() + 1) + ": a line of JSON Lines is one record");
        assertThat(records.get(1).advice().sourceId()).isEqualTo("C");
        assertThat(records.get(2).reason()).startsWith("line 3 holds text that is not JSON after its record");
        assertThat(records.get(3).reason()).startsWith("line 4 holds text that is not JSON after its record");
        assertThat(records.get(4).advice().sourceId()).isEqualTo("B");
    }

    @Test
    void garbageIsUnreadableNotEndless() {
        byte[] garbage = new String(new byte[] {(byte) 0xff, (byte) 0xfe, 0x00, 0x41, (byte) 0xc3},
                StandardCharsets.ISO_8859_1)
                .getBytes(StandardCharsets.UTF_8);
        assertThatThrownBy(() -> {
            try (RecordReader reader = RecordReader.open(RecordFormat.CSV, new ByteArrayInputStream(garbage),
                    StandardCharsets.UTF_8, ',')) {
                reader.forEachRemaining(r -> {});
            }
        }).isInstanceOf(UnreadableFileException.class);
    }

    private static List<Validated> readJson(String text, List<String> recordsPath) {
        List<Validated> out = new ArrayList<>();
        try (RecordReader reader = new JsonRecordReader(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)),
                StandardCharsets.UTF_8, recordsPath)) {
            reader.forEachRemaining(r -> out.add(DeliveryAdviceValidator.validate(r)));
        }
        return out;
    }

    private static final String LINE = "{\"source_id\": \"A-1\", \"sku\": \"S\", \"quantity\": 1, \"delivery_date\": \"2026-12-01\"}";

    /** An exporter's document over several lines, without a records path: rejected whole, never applied in part. */
    @Test
    void aJsonDocumentOverSeveralLinesIsNotReadAsJsonLines() {
        String document = "{\"lines\": [\n" + LINE + ",\n" + LINE.replace("A-1", "A-2") + "\n]}\n";
        assertThatThrownBy(() -> readJson(document, List.of())).isInstanceOf(UnreadableFileException.class)
                .hasMessageContaining("line 1 ends inside its JSON value")
                .hasMessageContaining("mapping.records-path");
        // the same document, read with its records path
        assertThat(readJson(document, List.of("lines"))).hasSize(2).allSatisfy(r -> assertThat(r.reason()).isNull());
        // a first record whose string holds a raw line break is that record's problem, not a document's
        List<Validated> broken = readJson("{\"source_id\": \"A-1\", \"sku\": \"two\nlines\"}\n" + LINE + "\n",
                List.of());
        assertThat(broken).hasSize(3);
        assertThat(broken.get(2).reason()).isNull();
        // a line cut short after a first whole record is that line's problem only
        List<Validated> records = readJson(LINE + "\n{\"source_id\": \"A-2\",\n" + LINE + "\n", List.of());
        assertThat(records).hasSize(3);
        assertThat(records.get(1).reason()).contains("is not valid JSON");
    }

    /** A JSON file's decimals exact, written as an item batch's are: never through a double. */
    @Test
    void aJsonFilesDecimalsAreReadAsWrittenNotAsDoubles() {
        String record = "{\"source_id\": \"A-1\", \"sku\": \"S\", \"quantity\": 10.0, \"delivery_date\": \"2026-12-01\","
                + " \"price\": 12500000.50, \"total\": 12345678901234567.89, \"rate\": 1e1}";
        for (List<Validated> records : List.of(readJson("[" + record + "]", List.of()), readJson(record + "\n",
                List.of()))) {
            Validated read = records.get(0);
            assertThat(read.reason()).isNull();
            assertThat(read.advice().quantity()).isEqualTo(10);
            assertThat(read.advice().attributes()).containsEntry("price", "12500000.5")
                    .containsEntry("total", "12345678901234567.89").containsEntry("rate", "10");
        }
    }

    /** A decimal past what a BigDecimal holds is its record's problem, not the file's nor the stage's. */
    @Test
    void aJsonNumberOutOfRangeIsItsRecordsProblem() {
        String huge = "{\"source_id\": \"A-9\", \"sku\": \"S\", \"quantity\": 1, \"delivery_date\": \"2026-12-01\","
                + " \"x\": 1e-2147483649}";
        for (List<Validated> records : List.of(readJson("[" + huge + ", " + LINE + "]", List.of()),
                readJson(huge + "\n" + LINE + "\n", List.of()))) {
            assertThat(records).hasSize(2);
            assertThat(records.get(0).reason()).contains("holds a number out of range");
            assertThat(records.get(1).reason()).isNull();
        }
    }

    /**
     * A number longer than 1000 digits or values nested deeper than 1000 levels (the JSON parser's limits) are named
     * in the supplier's terms, never by the Java method that set the limit: in JSON Lines the record is quarantined
     * alone; an array or a document cannot be read past it and is rejected, naming its line.
     */
    @Test
    void aJsonNumberOrNestingOverTheParsersLimitsIsNamedInTheSuppliersTerms() {
        String number = LINE.replace("}", ", \"x\": " + "1".repeat(1001) + "}");
        String deep = LINE.replace("}", ", \"x\": " + "[".repeat(1000) + "]".repeat(1000) + "}");
        List<Validated> lines = readJson(LINE + "\n" + number + "\n" + deep + "\n" + LINE + "\n", List.of());
        assertThat(lines).extracting(Validated::reason).containsExactly(null,
                "line 2 holds a number longer than 1000 digits, the limit for JSON numbers",
                "line 3 holds values nested deeper than 1000 levels, the limit for JSON", null);
        assertThatThrownBy(() -> readJson("[" + LINE + ",\n" + number + "]", List.of()))
                .isInstanceOf(UnreadableFileException.class).hasMessage("the file cannot be read as JSON at line 2,"
                        + " which holds a number longer than 1000 digits, the limit for JSON numbers");
        assertThatThrownBy(() -> readJson("[" + LINE + ",\n\n" + deep + "]", List.of()))
                .isInstanceOf(UnreadableFileException.class).hasMessage("the file cannot be read as JSON at line 3,"
                        + " which holds values nested deeper than 1000 levels, the limit for JSON");
        // beside the records of a document, before them
        assertThatThrownBy(() -> readJson("{\"order\": {\n\"id\": " + "9".repeat(1001) + ", \"lines\": [" + LINE
                + "]}}", List.of("order", "lines"))).isInstanceOf(UnreadableFileException.class)
                .hasMessage("the file cannot be read as JSON at line 2, which holds a number longer than 1000 digits,"
                        + " the limit for JSON numbers");
    }

    /** A field named twice (in any case) is the record's problem: the last value was taken silently. */
    @Test
    void aJsonRecordThatNamesAFieldTwiceIsQuarantinedAndTheFileReadsOn() {
        String twice = "{\"source_id\": \"A-2\", \"sku\": \"S\", \"quantity\": 5, \"quantity\": 500,"
                + " \"delivery_date\": \"2026-12-01\"}";
        String twiceInAnyCase = "{\"source_id\": \"A-3\", \"sku\": \"S\", \"QUANTITY\": 5, \"quantity\": 500,"
                + " \"delivery_date\": \"2026-12-01\"}";
        for (List<Validated> records : List.of(readJson("[" + twice + ", " + twiceInAnyCase + ", " + LINE + "]",
                List.of()), readJson(twice + "\n" + twiceInAnyCase + "\n" + LINE + "\n", List.of()))) {
            assertThat(records).hasSize(3);
            assertThat(records.get(0).reason()).contains("names the field \"quantity\" twice");
            assertThat(records.get(1).reason()).contains("names the field \"quantity\" twice");
            assertThat(records.get(2).reason()).isNull();
        }
    }

    /**
     * A name twice in an object inside a record, or in an object of an array inside it, would be stored as the last
     * value only, a record other than the one sent: the record is quarantined naming where, as an item batch refuses
     * it. The same name in two objects, at two levels or in another case (names inside a value are kept as written)
     * is no repeat.
     */
    @Test
    void aJsonRecordThatNamesAFieldTwiceInsideAValueIsQuarantined() {
        String inObject = LINE.replace("A-1", "A-2").replace("}", ", \"x\": {\"a\": 1, \"a\": 2}}");
        String inArray = LINE.replace("A-1", "A-3").replace("}", ", \"x\": [{\"b\": 1}, {\"b\": 1, \"b\": 2}]}");
        String deep = LINE.replace("A-1", "A-4")
                .replace("}", ", \"x\": {\"y\": [[{\"c\": {\"d\": 1, \"e\": {}, \"d\": 1}}]]}}");
        String noRepeat = LINE.replace("A-1", "A-5").replace("}", ", \"x\": {\"a\": 1, \"A\": 2}, \"y\": {\"a\": 1},"
                + " \"z\": [{\"a\": 1}, {\"a\": 2}], \"w\": {\"w\": {\"w\": 1}, \"v\": [1, {\"w\": 2}]}}");
        List<String> all = List.of(inObject, inArray, deep, noRepeat, LINE);
        for (List<Validated> records : List.of(readJson("[" + String.join(",\n", all) + "]", List.of()),
                readJson(String.join("\n", all) + "\n", List.of()),
                readJson("{\"order\": {\"lines\": [" + String.join(",\n", all) + "]}}", List.of("order", "lines")))) {
            String why = " twice (an object inside a record too names each of its fields once)";
            assertThat(records).extracting(Validated::reason).containsExactly(
                    "line 1 names the field \"x.a\"" + why, "line 2 names the field \"x[1].b\"" + why,
                    "line 3 names the field \"x.y[0][0].c.d\"" + why, null, null);
            assertThat(records.get(3).advice().attributes()).containsEntry("x", "{\"a\":1,\"A\":2}")
                    .containsEntry("z", "[{\"a\":1},{\"a\":2}]");
        }
    }

    @Test
    void aJsonDocumentIsReadToItsEndAndNothingMayFollowIt() {
        // the fields after the records and the closing braces are read (skipped), white space after is fine
        assertThat(readJson("{\"order\": {\"lines\": [" + LINE + "], \"note\": {\"x\": [1, 2]}}, \"tail\": 1}\n\n",
                List.of("order", "lines"))).hasSize(1);
        assertThat(readJson("[" + LINE + "]  \n", List.of())).hasSize(1);
        for (String trailing : List.of(" garbage", " {}", " []", " \"x\"", " 1", "]")) {
            assertThatThrownBy(
                    () -> readJson("{\"order\": {\"lines\": [" + LINE + "]}}" + trailing, List.of("order", "lines")))
                    .as("records path, then %s", trailing).isInstanceOf(UnreadableFileException.class);
            assertThatThrownBy(() -> readJson("[" + LINE + "]" + trailing, List.of()))
                    .as("top-level array, then %s", trailing).isInstanceOf(UnreadableFileException.class);
        }
        assertThatThrownBy(() -> readJson("[" + LINE + "] {}", List.of()))
                .hasMessageContaining("goes on after its JSON document");
        assertThatThrownBy(
                () -> readJson("{\"order\": {\"lines\": [" + LINE + "], \"more\": 1", List.of("order", "lines")))
                .isInstanceOf(UnreadableFileException.class).hasMessageContaining("end-of-input");
    }

    /**
     * A step of the records path named twice at its level leads to two arrays: the file is refused whole, never read
     * as the first array with the second passed over unseen. A name repeated elsewhere is no step of the path.
     */
    @Test
    void aJsonDocumentThatNamesAStepOfTheRecordsPathTwiceIsUnreadable() {
        String b = LINE.replace("A-1", "B-1");
        List<String> path = List.of("order", "lines");
        assertThatThrownBy(() -> readJson("{\"order\": {\"lines\": [" + LINE + "],\n\"lines\": [" + b + "]}}", path))
                .isInstanceOf(UnreadableFileException.class)
                .hasMessage("the JSON document holds order.lines twice (the second on line 2): the supplier's"
                        + " mapping.records-path order.lines must lead to one array of records");
        assertThatThrownBy(() -> readJson("{\"order\": {\"lines\": [" + LINE + "]}, \"order\": {\"lines\": [" + b
                + "]}}", path)).isInstanceOf(UnreadableFileException.class)
                .hasMessageStartingWith("the JSON document holds order twice");
        // whatever the repeat holds, after other fields
        assertThatThrownBy(() -> readJson("{\"order\": {\"lines\": [" + LINE + "], \"note\": 1, \"lines\": null}}",
                path)).isInstanceOf(UnreadableFileException.class).hasMessageContaining("holds order.lines twice");
        // the same names deeper inside other values, or other names repeated, are read past as before
        assertThat(readJson("{\"order\": {\"lines\": [" + LINE + "], \"meta\": {\"lines\": [" + b
                + "], \"order\": 1}, \"note\": 1, \"note\": 2}, \"tail\": {\"order\": {}}}", path)).hasSize(1);
    }
}
