package dev.ingestor.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The stored lines of an item batch read back as its items, on plain strings. */
class ItemLinesTest {

    private static List<RawRecord> read(String lines) {
        List<RawRecord> records = new ArrayList<>();
        try (ItemLines items = ItemLines.open(new ByteArrayInputStream(lines.getBytes(StandardCharsets.UTF_8)))) {
            items.forEachRemaining(records::add);
        }
        return records;
    }

    /** One field in two cases, the first of them null: neither value is taken. */
    @Test
    void anItemThatNamesAFieldInTwoCasesIsBrokenEvenWhenTheFirstIsNull() {
        List<RawRecord> records = read("{\"QUANTITY\":null,\"quantity\":5,\"source_id\":\"A\"}\n");
        assertThat(records.get(0).problem()).contains("names the field \"quantity\" twice");
    }

    @Test
    void aDecimalReadsAsItsValueAndAnItemThatIsNoObjectIsOneBrokenRecord() {
        List<RawRecord> records = read("\"x\"\n{\"quantity\":1E+1,\"source_version\":12,\"price\":1.50}\n");
        assertThat(records).hasSize(2);
        assertThat(records.get(0).isBroken()).isTrue();
        assertThat(records.get(0).where()).isEqualTo("item 1");
        assertThat(records.get(1).fields()).containsEntry("quantity", "10").containsEntry("source_version", "12")
                .containsEntry("price", "1.5");
    }

    @Test
    void aHugeExponentIsKeptAsWrittenNotWrittenOutInFull() {
        RawRecord record = read("{\"source_id\":\"a\",\"x\":1E+999999999,\"y\":1E-999999999}\n").get(0);
        assertThat(record.fields()).containsEntry("x", "1E+999999999").containsEntry("y", "1E-999999999");
    }

    /** Zeros stripped would take the exponent out of a BigDecimal's range: kept as written, not a failed stage. */
    @Test
    void aNumberWhoseZerosCannotBeStrippedIsKeptAsWritten() {
        RawRecord record = read("{\"source_id\":\"a\",\"x\":1.00E+2147483649}\n").get(0);
        assertThat(record.isBroken()).isFalse();
        assertThat(record.fields()).containsEntry("x", "1.00E+2147483649");
    }

    /**
     * Intake takes a number of up to 1,000 characters; its canonical form adds an exponent ({@code 998 digits e5} is
     * {@code d.ddd...E+1002}), which the stored line must still be read with.
     */
    @Test
    void aNumberWhoseCanonicalFormIsLongerThanIntakesLimitIsReadBack() {
        String digits = "1" + "2".repeat(997);
        String canonical = digits.charAt(0) + "." + digits.substring(1) + "E+1002";
        assertThat(canonical.length()).isGreaterThan(1000);
        RawRecord record = read("{\"source_id\":\"a\",\"x\":" + canonical + "}\n").get(0);
        assertThat(record.isBroken()).isFalse();
        assertThat(record.fields().get("x")).isEqualTo(digits + "00000");
    }
}
