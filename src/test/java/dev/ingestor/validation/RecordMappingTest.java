package dev.ingestor.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.RecordFormat;
import dev.ingestor.config.SupplierProperties;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/** A supplier's own layout becomes the one record; what it cannot read is named in the supplier's words. */
class RecordMappingTest {

    private static SupplierProperties.Mapping hansa() {
        SupplierProperties.Mapping m = new SupplierProperties.Mapping();
        m.setFields(Map.of("Artikelnummer", "sku", "Menge", "quantity", "Liefertermin", "delivery_date",
                "Position", "source_id", "Version", "source_version"));
        m.setDatePattern("dd.MM.yyyy");
        m.setDecimalSeparator(',');
        m.setGroupingSeparator('.');
        return m;
    }

    private static List<Validated> read(RecordFormat format, String text, char delimiter,
            SupplierProperties.Mapping m) {
        List<Validated> out = new ArrayList<>();
        try (RecordReader reader = RecordReader.open(format,
                new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)),
                StandardCharsets.UTF_8, delimiter, RecordMapping.of("TEST", m))) {
            reader.forEachRemaining(r -> out.add(DeliveryAdviceValidator.validate(r)));
        }
        return out;
    }

    @Test
    void germanCsvBecomesTheRecordAndProblemsNameTheSuppliersFieldAndLine() {
        List<Validated> records = read(RecordFormat.CSV, """
                Artikelnummer;Menge;Liefertermin;Position;Version;Farbe
                SKU-1;1.200;24.12.2026;P-1;1;rot
                SKU-2;-1;01.01.2027;P-2;1;blau
                SKU-3;2,5;31.02.2026;P-3;1;grün
                """, ';', hansa());
        assertThat(records.get(0).advice()).isEqualTo(new DeliveryAdvice("P-1", 1L, "SKU-1", 1200,
                LocalDate.of(2026, 12, 24), Map.of("farbe", "rot")));
        assertThat(records.get(1).reason()).isEqualTo("line 3: Menge: '-1' is not a whole number greater than 0");
        assertThat(records.get(2).reason()).isEqualTo("line 4: Menge: '2,5' is not a whole number greater than 0"
                + " (decimal separator ',', grouping separator '.'); Liefertermin: '31.02.2026' is not a date of the pattern dd.MM.yyyy");
    }

    /**
     * A supplier field name with a space, bound from the YAML as the app binds it: in brackets it is kept as written
     * and renames the file's column; without, Spring Boot binds it as VersionNr, which no column matches, and the
     * version stays an attribute (config.SupplierFieldNames refuses such a name at start).
     */
    @Test
    void aBracketedFieldNameWithASpaceRenamesItsColumn() throws Exception {
        String file = "source_id,sku,quantity,delivery_date,Version Nr\nP-1,SKU-1,5,2026-12-01,3\n";
        SupplierProperties.Mapping bracketed = boundFromYaml("\"[Version Nr]\": source_version");
        assertThat(bracketed.getFields()).isEqualTo(Map.of("Version Nr", "source_version"));
        assertThat(read(RecordFormat.CSV, file, ',', bracketed).get(0).advice()).isEqualTo(
                new DeliveryAdvice("P-1", 3L, "SKU-1", 5, LocalDate.of(2026, 12, 1), Map.of()));

        SupplierProperties.Mapping unbracketed = boundFromYaml("\"Version Nr\": source_version");
        assertThat(unbracketed.getFields()).isEqualTo(Map.of("VersionNr", "source_version"));
        assertThat(read(RecordFormat.CSV, file, ',', unbracketed).get(0).advice()).isEqualTo(
                new DeliveryAdvice("P-1", null, "SKU-1", 5, LocalDate.of(2026, 12, 1), Map.of("version nr", "3")));
    }

    private static SupplierProperties.Mapping boundFromYaml(String field) throws Exception {
        String yaml = "ingestor:\n  suppliers:\n    ACME:\n      mapping:\n        fields:\n          " + field + "\n";
        List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("application.yaml",
                new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
        return new Binder(ConfigurationPropertySources.from(sources)).bind("ingestor", IngestorProperties.class).get()
                .getSuppliers().get("ACME").getMapping();
    }

    @Test
    void aWholeNumberWithDecimalZerosIsThatNumber() {
        List<Validated> records = read(RecordFormat.CSV,
                "Artikelnummer;Menge;Liefertermin;Position\nS;1.234,00;24.12.2026;P\n", ';', hansa());
        assertThat(records.get(0).advice().quantity()).isEqualTo(1234);
    }

    /** A grouping separator groups thousands, or the number is refused: never 2.5 read as 25 pieces. */
    @Test
    void aGroupingSeparatorOutsideAThousandsGroupIsNoWholeNumber() {
        List<Validated> records = read(RecordFormat.CSV, "Artikelnummer;Menge;Liefertermin;Position\n"
                + "S;2.5;24.12.2026;P1\nS;12.34;24.12.2026;P2\nS;1.2.3;24.12.2026;P3\nS;1234.567;24.12.2026;P4\n"
                + "S;.100;24.12.2026;P5\nS;1.200;24.12.2026;P6\nS;1.234.567,0;24.12.2026;P7\nS;+12.000;24.12.2026;P8\n"
                + "S;0.500;24.12.2026;P9\nS;000.001;24.12.2026;P10\n",
                ';', hansa());
        for (int i : new int[] {0, 1, 2, 3, 4, 8, 9}) {
            assertThat(records.get(i).reason()).as("record %d", i + 1).contains("is not a whole number");
        }
        assertThat(records.get(5).advice().quantity()).isEqualTo(1200);
        assertThat(records.get(6).advice().quantity()).isEqualTo(1234567);
        assertThat(records.get(7).advice().quantity()).isEqualTo(12000);
    }

    @Test
    void aQuantityWithAnExponentIsTheRecordsProblemNotTheStages() {
        // BigDecimal reads exponents: 1E999999999 would be a billion digits, 1E2147483647 throws, 1E5 is no
        // number the supplier writes; each is that one record's problem, never a failure of the whole file
        List<Validated> records = read(RecordFormat.CSV, """
                Artikelnummer;Menge;Liefertermin;Position
                S;1E999999999;24.12.2026;P-1
                S;1E2147483647;24.12.2026;P-2
                S;1E5;24.12.2026;P-3
                S;1,5e3;24.12.2026;P-4
                S;12345678901234567890123456789012345678901;24.12.2026;P-5
                S;7;24.12.2026;P-6
                """, ';', hansa());
        assertThat(records).hasSize(6);
        assertThat(records.get(0).reason())
                .isEqualTo("line 2: Menge: '1E999999999' is not a whole number greater than 0"
                        + " (decimal separator ',', grouping separator '.')");
        assertThat(records.get(1).reason()).startsWith("line 3: Menge: '1E2147483647' is not a whole number");
        assertThat(records.get(2).reason()).startsWith("line 4: Menge: '1E5' is not a whole number");
        assertThat(records.get(3).reason()).startsWith("line 5: Menge: '1,5e3' is not a whole number");
        assertThat(records.get(4).reason()).startsWith("line 6: Menge: '").contains("is not a whole number");
        assertThat(records.get(5).advice().quantity()).isEqualTo(7);
    }

    @Test
    void aRenamedFieldThatMeetsAColumnOfTheRecordsNameMakesTheHeaderUnreadable() {
        SupplierProperties.Mapping m = new SupplierProperties.Mapping();
        m.setFields(Map.of("Artikelnummer", "sku"));
        String file = "source_id;Artikelnummer;sku;quantity;delivery_date\nP;A-1;S-1;1;2026-12-24\n";
        assertThatThrownBy(() -> read(RecordFormat.CSV, file, ';', m))
                .isInstanceOf(UnreadableFileException.class)
                .hasMessageContaining("has both Artikelnummer and sku for the record field sku");
        m.setIgnore(List.of("sku"));
        assertThat(read(RecordFormat.CSV, file, ';', m).get(0).advice().sku()).isEqualTo("A-1");
    }

    @Test
    void aJsonRecordWithARenamedFieldAndAFieldOfTheRecordsNameIsThatRecordsProblem() {
        SupplierProperties.Mapping m = new SupplierProperties.Mapping();
        m.setFields(Map.of("article", "sku"));
        List<Validated> records = read(RecordFormat.JSON, """
                [{"source_id": "P-1", "article": "A-1", "quantity": 1, "delivery_date": "2026-12-24"},
                 {"source_id": "P-2", "article": "A-2", "SKU": "S-2", "quantity": 1, "delivery_date": "2026-12-24"}]
                """, ',', m);
        assertThat(records.get(0).advice().sku()).isEqualTo("A-1");
        assertThat(records.get(1).reason()).contains("has both article and sku for the record field sku");
    }

    @Test
    void aRecordIsNamedByTheLineItStartsOnAfterBlankLinesAndMultiLineValues() {
        List<Validated> records = read(RecordFormat.CSV, """
                source_id,sku,quantity,delivery_date


                A,S,0,2026-12-24
                B,"two
                lines",0,2026-12-24
                C,S,0,2026-12-24""", ',', new SupplierProperties.Mapping());
        assertThat(records).extracting(Validated::reason).containsExactly(
                "line 4: quantity: '0' is not a whole number greater than 0",
                "line 5: sku: contains the control character U+000A; quantity: '0' is not a whole number greater than 0",
                "line 7: quantity: '0' is not a whole number greater than 0");
    }

    @Test
    void headerlessCsvWithSkippedLinesAndCommentsCountsTheFilesLines() {
        SupplierProperties.Mapping m = new SupplierProperties.Mapping();
        m.setHeader(false);
        m.setColumns(List.of("source_id", "sku", "quantity", "delivery_date"));
        m.setSkipLines(2);
        m.setComment('#');
        m.setQuote('\'');
        List<Validated> records = read(RecordFormat.CSV, """
                EXPORT 2026-11-23
                generated by WMS 4.2
                # first batch
                L-1,'SKU,1',4,2026-12-01
                # second batch

                L-2,SKU-2,0,2026-12-02
                L-3,SKU-3
                """, ',', m);
        assertThat(records).hasSize(3);
        assertThat(records.get(0).advice())
                .isEqualTo(new DeliveryAdvice("L-1", null, "SKU,1", 4, LocalDate.of(2026, 12, 1), Map.of()));
        assertThat(records.get(1).reason())
                .isEqualTo("line 7: column 3 (quantity): '0' is not a whole number greater than 0");
        assertThat(records.get(2).reason()).isEqualTo("line 8 has 2 values but the supplier's mapping names 4 columns");
    }

    @Test
    void defaultsFillBlanksConstantsAlwaysWinAndIgnoredFieldsAreDropped() {
        SupplierProperties.Mapping m = new SupplierProperties.Mapping();
        m.setDefaults(Map.of("quantity", "1"));
        m.setConstants(Map.of("delivery_date", "2026-12-31"));
        m.setIgnore(List.of("Internal"));
        List<Validated> records = read(RecordFormat.CSV, """
                source_id,sku,quantity,delivery_date,internal,colour
                A,S,,2020-01-01,x,red
                B,S,7,,y,blue
                """, ',', m);
        assertThat(records.get(0).advice())
                .isEqualTo(new DeliveryAdvice("A", null, "S", 1, LocalDate.of(2026, 12, 31), Map.of("colour", "red")));
        assertThat(records.get(1).advice())
                .isEqualTo(new DeliveryAdvice("B", null, "S", 7, LocalDate.of(2026, 12, 31), Map.of("colour", "blue")));
    }

    @Test
    void aHeaderLacksOnlyWhatNoDefaultOrConstantSupplies() {
        SupplierProperties.Mapping m = hansa();
        assertThatThrownBy(() -> read(RecordFormat.CSV, "Artikelnummer;Position\nS;P\n", ';', m))
                .isInstanceOf(UnreadableFileException.class)
                .hasMessageContaining("lacks the column(s) [Menge, Liefertermin]");
        m.setConstants(Map.of("quantity", "1", "delivery_date", "2026-12-31"));
        assertThat(read(RecordFormat.CSV, "Artikelnummer;Position\nS;P\n", ';', m).get(0).advice()).isNotNull();
    }

    @Test
    void jsonRecordsAreReadFromTheirPathInsideTheDocument() {
        SupplierProperties.Mapping m = new SupplierProperties.Mapping();
        m.setRecordsPath("order.lines");
        m.setFields(Map.of("lineId", "source_id", "article", "sku", "qty", "quantity", "due", "delivery_date"));
        List<Validated> records = read(RecordFormat.JSON, """
                {"order": {"id": "O-1", "customer": {"lines": "not these"}, "notes": [1, 2, {"a": []}],
                  "lines": [
                    {"lineId": "O-1/1", "article": "SKU-1", "qty": 2, "due": "2026-12-01"},
                    {"lineId": "O-1/2", "article": "SKU-2", "qty": -2, "due": "2026-12-01"}
                  ],
                  "total": 4}}
                """, ',', m);
        assertThat(records).hasSize(2);
        assertThat(records.get(0).advice())
                .isEqualTo(new DeliveryAdvice("O-1/1", null, "SKU-1", 2, LocalDate.of(2026, 12, 1), Map.of()));
        assertThat(records.get(1).reason()).isEqualTo("line 4: qty: '-2' is not a whole number greater than 0");
    }

    @Test
    void aDocumentWithoutTheRecordsPathIsUnreadable() {
        SupplierProperties.Mapping m = new SupplierProperties.Mapping();
        m.setRecordsPath("order.lines");
        assertThatThrownBy(() -> read(RecordFormat.JSON, "{\"order\": {\"lines\": {}}}", ',', m))
                .isInstanceOf(UnreadableFileException.class).hasMessageContaining("no array at order.lines");
        assertThatThrownBy(() -> read(RecordFormat.JSON, "{\"orders\": []}", ',', m))
                .isInstanceOf(UnreadableFileException.class).hasMessageContaining("nothing at order");
    }

    @Test
    void settingsThatCannotWorkFailTheStartNamingTheProperty() {
        SupplierProperties.Mapping badPattern = new SupplierProperties.Mapping();
        badPattern.setDatePattern("dd.MM.yyyy Q{");
        assertThatThrownBy(() -> RecordMapping.of("HANSA", badPattern))
                .hasMessageStartingWith(
                        "ingestor.suppliers.HANSA.mapping.date-pattern: 'dd.MM.yyyy Q{' is not a date pattern");
        SupplierProperties.Mapping unknownField = new SupplierProperties.Mapping();
        unknownField.setFields(Map.of("Menge", "qty"));
        assertThatThrownBy(() -> RecordMapping.of("HANSA", unknownField))
                .hasMessageStartingWith("ingestor.suppliers.HANSA.mapping.fields.Menge: 'qty' is not a record field");
        SupplierProperties.Mapping noColumns = new SupplierProperties.Mapping();
        noColumns.setHeader(false);
        assertThatThrownBy(() -> RecordMapping.of("PLAIN", noColumns))
                .hasMessageContaining("ingestor.suppliers.PLAIN.mapping.columns must name");
        SupplierProperties.Mapping sameSeparators = new SupplierProperties.Mapping();
        sameSeparators.setDecimalSeparator(',');
        sameSeparators.setGroupingSeparator(',');
        assertThatThrownBy(() -> RecordMapping.of("HANSA", sameSeparators)).hasMessageContaining("both ','");
        SupplierProperties.Mapping groupingIsTheDefaultDecimal = new SupplierProperties.Mapping();
        groupingIsTheDefaultDecimal.setGroupingSeparator('.');
        assertThatThrownBy(() -> RecordMapping.of("HANSA", groupingIsTheDefaultDecimal))
                .hasMessageContaining("decimal-separator (unset: '.')").hasMessageContaining("both '.'");
        SupplierProperties.Mapping commentIsQuote = new SupplierProperties.Mapping();
        commentIsQuote.setComment('"');
        assertThatThrownBy(() -> RecordMapping.of("HANSA", commentIsQuote))
                .hasMessage(
                        "ingestor.suppliers.HANSA.mapping.comment and ingestor.suppliers.HANSA.mapping.quote are both '\"'");
        SupplierProperties.Mapping lineBreakQuote = new SupplierProperties.Mapping();
        lineBreakQuote.setQuote('\n');
        assertThatThrownBy(() -> RecordMapping.of("HANSA", lineBreakQuote))
                .hasMessageStartingWith("ingestor.suppliers.HANSA.mapping.quote is a line break");
        SupplierProperties.Mapping columnsWithoutDate = new SupplierProperties.Mapping();
        columnsWithoutDate.setHeader(false);
        columnsWithoutDate.setColumns(List.of("source_id", "sku", "quantity"));
        assertThatThrownBy(() -> RecordMapping.of("PLAIN", columnsWithoutDate))
                .hasMessageStartingWith(
                        "ingestor.suppliers.PLAIN.mapping.columns [source_id, sku, quantity] lacks the record field(s) [delivery_date]");
        columnsWithoutDate.setDefaults(Map.of("delivery_date", "2026-12-31"));
        assertThat(RecordMapping.of("PLAIN", columnsWithoutDate).columns()).hasSize(3);
        SupplierProperties.Mapping germanDefault = new SupplierProperties.Mapping();
        germanDefault.setDefaults(Map.of("delivery_date", "24.12.2026"));
        assertThatThrownBy(() -> RecordMapping.of("HANSA", germanDefault))
                .hasMessageStartingWith(
                        "ingestor.suppliers.HANSA.mapping.defaults.delivery_date: the record rules refuse it (delivery_date: ");
        SupplierProperties.Mapping zeroConstant = new SupplierProperties.Mapping();
        zeroConstant.setConstants(Map.of("quantity", "0"));
        assertThatThrownBy(() -> RecordMapping.of("HANSA", zeroConstant))
                .hasMessageStartingWith(
                        "ingestor.suppliers.HANSA.mapping.constants.quantity: the record rules refuse it (quantity: '0' is not a whole number");
        SupplierProperties semicolons = new SupplierProperties();
        semicolons.setCsvDelimiter(';');
        semicolons.getMapping().setQuote(';');
        assertThatThrownBy(() -> RecordMapping.of("HANSA", semicolons))
                .hasMessage(
                        "ingestor.suppliers.HANSA.mapping.quote and ingestor.suppliers.HANSA.csv-delimiter are both ';'");
        semicolons.getMapping().setQuote('"');
        semicolons.getMapping().setComment(';');
        assertThatThrownBy(() -> RecordMapping.of("HANSA", semicolons))
                .hasMessage(
                        "ingestor.suppliers.HANSA.mapping.comment and ingestor.suppliers.HANSA.csv-delimiter are both ';'");
        semicolons.getMapping().setComment('#');
        assertThat(RecordMapping.of("HANSA", semicolons).comment()).isEqualTo('#');
        SupplierProperties.Mapping twoForOne = new SupplierProperties.Mapping();
        twoForOne.setFields(Map.of("A", "sku", "B", "sku"));
        assertThatThrownBy(() -> RecordMapping.of("HANSA", twoForOne))
                .hasMessageContaining("both name the record field sku")
                .hasMessageContaining("ingestor.suppliers.HANSA.mapping.fields.A")
                .hasMessageContaining("ingestor.suppliers.HANSA.mapping.fields.B");
        SupplierProperties.Mapping repeatedColumn = new SupplierProperties.Mapping();
        repeatedColumn.setHeader(false);
        repeatedColumn.setColumns(List.of("source_id", "sku", "quantity", "sku", "delivery_date"));
        assertThatThrownBy(() -> RecordMapping.of("PLAIN", repeatedColumn))
                .hasMessage("ingestor.suppliers.PLAIN.mapping.columns names [sku] more than once");
    }
}
