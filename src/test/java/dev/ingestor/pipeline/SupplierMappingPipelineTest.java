package dev.ingestor.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.TestKafka;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Suppliers onboarded by configuration alone: their own files, dropped into their inbox folders, become the
 * one record on Kafka, and what cannot be used is quarantined naming the supplier's own field and line.
 */
class SupplierMappingPipelineTest extends IngestorTestSupport {

    @Autowired
    ObjectMapper mapper;

    @Test
    void germanSemicolonCsvWithDecimalCommasAndGermanDates() throws Exception {
        UUID job = dropAndAwait("HANSA", "hansa-lieferavis.csv");
        assertThat(jdbc.queryForMap("SELECT total, accepted, quarantined FROM import_job WHERE id = ?", job))
                .containsEntry("total", 5L).containsEntry("accepted", 2L).containsEntry("quarantined", 3L);
        assertThat(reasons(job)).containsExactly(
                "line 4: Menge: '-1' is not a whole number greater than 0",
                "line 5: Liefertermin: '31.02.2026' is not a date of the pattern dd.MM.yyyy",
                "line 6: Menge: '2,5' is not a whole number greater than 0 (decimal separator ',', grouping separator '.')");

        Map<String, JsonNode> records = recordsOnKafka(job);
        assertThat(records).containsOnlyKeys("LA-2026-001", "LA-2026-002");
        JsonNode first = records.get("LA-2026-001");
        assertThat(first.get("sku").asString()).isEqualTo("4711-A");
        assertThat(first.get("quantity").asLong()).isEqualTo(1200);
        assertThat(first.get("delivery_date").asString()).isEqualTo("2026-12-24");
        assertThat(first.get("bemerkung").asString()).isEqualTo("Kühlware; oben");
        assertThat(first.has("bearbeiter")).as("an ignored field is dropped").isFalse();
        assertThat(records.get("LA-2026-002").get("quantity").asLong()).isEqualTo(12);
        assertThat(records.get("LA-2026-002").get("delivery_date").asString()).isEqualTo("2027-01-02");
    }

    @Test
    void recordsNestedInsideAJsonDocument() throws Exception {
        UUID job = dropAndAwait("ORBIT", "orbit-order.json");
        assertThat(reasons(job)).containsExactly("line 9: pieces: '0' is not a whole number greater than 0");
        Map<String, JsonNode> records = recordsOnKafka(job);
        assertThat(records).containsOnlyKeys("ORB-88231-1", "ORB-88231-2");
        JsonNode line = records.get("ORB-88231-1");
        assertThat(line.get("sku").asString()).isEqualTo("ORB-SKU-100");
        assertThat(line.get("quantity").asLong()).isEqualTo(40);
        assertThat(line.get("source_version").asLong()).isEqualTo(2);
        assertThat(line.get("warehouse").asString()).isEqualTo("W3");
        assertThat(line.has("lineno")).isFalse();
    }

    @Test
    void csvWithoutAHeaderByPositionWithATitleLineAndComments() throws Exception {
        UUID job = dropAndAwait("PLAIN", "plain-export.csv");
        assertThat(reasons(job)).containsExactly(
                "line 7 has 3 values but the supplier's mapping names 4 columns",
                "line 8: column 3 (quantity): '0' is not a whole number greater than 0");
        Map<String, JsonNode> records = recordsOnKafka(job);
        assertThat(records).containsOnlyKeys("PL-1", "PL-2");
        assertThat(records.get("PL-1").get("quantity").asLong()).isEqualTo(10);
        assertThat(records.get("PL-2").get("quantity").asLong()).as("the default fills a blank").isEqualTo(1);
        assertThat(records.get("PL-2").get("source_version").asLong()).as("the constant").isEqualTo(1);
    }

    /**
     * A spreadsheet's "CSV UTF-8" export: a byte-order mark, Windows line ends, semicolons. The mark names the file's
     * encoding, so it is read as UTF-8 although the supplier's files are configured as Latin-1, and its first header
     * is Artikelnummer, not the mark and Artikelnummer.
     */
    @Test
    void aSpreadsheetExportWithAByteOrderMarkAndWindowsLineEndsIsRead() throws Exception {
        String export = "Artikelnummer;Menge;Liefertermin;Position;Version;Bemerkung;Bearbeiter\r\n"
                + "4711-A;1.200;24.12.2026;LA-2026-101;1;\"K\u00fchlware; oben\";mk\r\n"
                + "4711-B;12;02.01.2027;LA-2026-102;1;;mk\r\n";
        byte[] text = export.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] file = new byte[text.length + 3];
        file[0] = (byte) 0xEF;
        file[1] = (byte) 0xBB;
        file[2] = (byte) 0xBF;
        System.arraycopy(text, 0, file, 3, text.length);
        UUID job = dropAndAwait("HANSA", "export.csv", file);
        assertThat(jdbc.queryForMap("SELECT state, total, accepted, quarantined FROM import_job WHERE id = ?", job))
                .containsEntry("state", "COMPLETED").containsEntry("total", 2L).containsEntry("accepted", 2L);
        Map<String, JsonNode> records = recordsOnKafka(job);
        assertThat(records).containsOnlyKeys("LA-2026-101", "LA-2026-102");
        assertThat(records.get("LA-2026-101").get("sku").asString()).isEqualTo("4711-A");
        assertThat(records.get("LA-2026-101").get("bemerkung").asString()).isEqualTo("K\u00fchlware; oben");
        assertThat(records.get("LA-2026-102").get("delivery_date").asString()).isEqualTo("2027-01-02");
    }

    private UUID dropAndAwait(String supplier, String file) throws IOException {
        try (InputStream in = getClass().getResourceAsStream("/suppliers/" + file)) {
            return dropAndAwait(supplier, file, in.readAllBytes());
        }
    }

    private UUID dropAndAwait(String supplier, String file, byte[] content) throws IOException {
        drop(supplier, file, content);
        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM import_job WHERE supplier = ? AND state IN ('COMPLETED', 'COMPLETED_WITH_ERRORS', 'FAILED')",
                Long.class, supplier) == 1);
        return jdbc.queryForObject("SELECT id FROM import_job WHERE supplier = ?", UUID.class, supplier);
    }

    private List<String> reasons(UUID job) {
        return jdbc.queryForList(
                "SELECT reason FROM job_record WHERE job_id = ? AND outcome = 'QUARANTINED' ORDER BY line",
                String.class, job);
    }

    /** The records published for the job, by source id. */
    private Map<String, JsonNode> recordsOnKafka(UUID job) {
        await().atMost(Duration.ofSeconds(30)).until(
                () -> jdbc.queryForObject("SELECT count(*) FROM outbox", Long.class) == 0);
        Map<String, JsonNode> records = new java.util.TreeMap<>();
        TestKafka.readAll("ingestor.items", Duration.ofSeconds(1)).stream()
                .map(ConsumerRecord::value).map(this::json)
                .filter(e -> job.toString().equals(e.path("job_id").asString()))
                .forEach(e -> {
                    assertThat(e.get("outcome").asString()).isEqualTo("ACCEPTED");
                    records.put(e.get("source_id").asString(), e.get("record"));
                });
        return records;
    }

    private JsonNode json(String text) {
        try {
            return mapper.readTree(text);
        } catch (JacksonException e) {
            throw new IllegalStateException(e);
        }
    }
}
