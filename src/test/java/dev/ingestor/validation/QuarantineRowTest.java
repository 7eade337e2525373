package dev.ingestor.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A quarantined record's row keeps a bounded part of its fields: a record within the record size limit whose every
 * character is a control character would otherwise be kept six to seven times its size, a thousand such rows at once.
 */
class QuarantineRowTest {

    private static String fieldsOf(RawRecord raw) {
        return (String) QuarantineWriter.row(UUID.randomUUID(), DeliveryAdviceValidator.validate(raw))[5];
    }

    @Test
    void aRecordOfControlCharactersKeepsABoundedPartOfItsFieldsAndSaysHowManyWentUnkept() {
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 0; i < 1000; i++) {
            fields.put("c" + i, "a" + "\u0001".repeat(62) + "b");
        }
        String json = fieldsOf(new RawRecord(1, 2, fields, null));

        assertThat(json.length()).isLessThanOrEqualTo(QuarantineWriter.FIELDS_KEPT + 200);
        JsonNode kept = JsonMapper.builder().build().readTree(json);
        String note = kept.get(QuarantineWriter.MORE_FIELDS).asString();
        assertThat(note).endsWith("more field(s) not kept: a quarantined record keeps 32768 characters of its fields");
        assertThat(Integer.parseInt(note.substring(0, note.indexOf(' '))) + kept.size() - 1).isEqualTo(1000);
        assertThat(kept.get("c0").asString()).startsWith("a\\u0001");
    }

    /**
     * A record whose every field has a control character and an unpaired surrogate in its name and its value: its
     * reason names its first problems and how many more, bounded, where it was about ten times the record.
     */
    @Test
    void aRecordOfManyProblemsHasABoundedReasonThatCountsTheRest() {
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 0; i < 1000; i++) {
            fields.put("\u0001\ud800" + i, "\u0001\ud800");
        }
        String reason = DeliveryAdviceValidator.validate(new RawRecord(1, 2, fields, null)).reason();
        assertThat(reason.length()).isLessThanOrEqualTo(DeliveryAdviceValidator.MAX_REASON + 3);
        assertThat(reason).startsWith("line 2: field name").contains("; and 3994 more problem(s)");
    }

    @Test
    void anOrdinaryRecordKeepsEveryField() {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("source_id", "Q-1");
        fields.put("quantity", "x \"quoted\" \\ ");
        // a JSON null, as a JSON record or a hook gives it
        fields.put("source_version", null);
        JsonNode kept = JsonMapper.builder().build().readTree(fieldsOf(new RawRecord(1, 2, fields, null)));
        assertThat(kept.size()).isEqualTo(3);
        assertThat(kept.get("source_version").isNull()).isTrue();
        assertThat(kept.get("quantity").asString()).isEqualTo("x \"quoted\" \\ ");
    }
}
