package dev.ingestor.operations;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The admin preview of a supplier's sample file: the supplier's own fields, the mapped record and the validation
 * outcome of the first records, read exactly as a job of the file would be, and nothing stored.
 */
class SupplierPreviewTest extends IngestorTestSupport {

    private final ObjectMapper json = new JsonMapper();

    @Test
    void aGermanSampleShowsTheSuppliersFieldsTheMappedRecordAndTheOutcomeInTheSuppliersWords() throws Exception {
        HttpResponse<String> answer = post("/api/v1/admin/suppliers/HANSA/preview?records=4", ADMIN_KEY, "text/csv",
                sample("hansa-lieferavis.csv"));

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        JsonNode preview = json.readTree(answer.body());
        assertThat(preview.path("supplier").asString()).isEqualTo("HANSA");
        assertThat(preview.path("format").asString()).isEqualTo("CSV");
        assertThat(preview.path("more").asBoolean()).as("a fifth record follows").isTrue();
        assertThat(preview.path("fileOutcome").isNull()).isTrue();
        JsonNode records = preview.path("records");
        assertThat(records).hasSize(4);

        JsonNode first = records.get(0);
        assertThat(first.path("line").asLong()).isEqualTo(2);
        assertThat(first.path("supplierFields").path("menge").asString()).isEqualTo("1.200");
        assertThat(first.path("supplierFields").path("liefertermin").asString()).isEqualTo("24.12.2026");
        assertThat(first.path("record").path("quantity").asString()).isEqualTo("1200");
        assertThat(first.path("record").path("delivery_date").asString()).isEqualTo("2026-12-24");
        assertThat(first.path("record").path("sku").asString()).isEqualTo("4711-A");
        assertThat(first.path("outcome").asString()).isEqualTo("VALID");

        JsonNode negative = records.get(2);
        assertThat(negative.path("outcome").asString()).isEqualTo("QUARANTINED");
        assertThat(negative.path("reason").asString()).contains("Menge").contains("'-1'").contains("line 4");
        JsonNode noSuchDay = records.get(3);
        assertThat(noSuchDay.path("outcome").asString()).isEqualTo("QUARANTINED");
        assertThat(noSuchDay.path("reason").asString()).contains("Liefertermin").contains("31.02.2026");

        for (String table : java.util.List.of("import_job", "content_key", "job_record", "item", "item_version",
                "outbox",
                "intake_failure", "notification")) {
            assertThat(jdbc.queryForObject("SELECT count(*) FROM " + table, Long.class)).as("rows in " + table)
                    .isZero();
        }
    }

    @Test
    void aNestedJsonSampleIsReadFromItsRecordsPath() throws Exception {
        HttpResponse<String> answer = post("/api/v1/admin/suppliers/ORBIT/preview", ADMIN_KEY, "application/json",
                sample("orbit-order.json"));

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        JsonNode records = json.readTree(answer.body()).path("records");
        assertThat(records).hasSize(3);
        assertThat(records.get(0).path("record").path("source_id").asString()).isEqualTo("ORB-88231-1");
        assertThat(records.get(0).path("record").path("quantity").asString()).isEqualTo("40");
        assertThat(records.get(2).path("outcome").asString()).as("0 pieces").isEqualTo("QUARANTINED");
        assertThat(json.readTree(answer.body()).path("more").asBoolean()).isFalse();
    }

    @Test
    void aSampleOfASupplierWithARouteHookIsShownAsTheHookLeavesIt() throws Exception {
        HttpResponse<String> answer = post("/api/v1/admin/suppliers/SPLITCO/preview", ADMIN_KEY, "text/csv",
                "source_id,sku,quantity,delivery_date\nSP-1@3,SKU-1,5,2026-12-01\nSP-2,SKU-2,1,2026-12-02\n"
                        .getBytes(StandardCharsets.UTF_8));

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        JsonNode records = json.readTree(answer.body()).path("records");
        assertThat(records.get(0).path("supplierFields").path("source_id").asString()).isEqualTo("SP-1@3");
        assertThat(records.get(0).path("record").path("source_id").asString()).isEqualTo("SP-1");
        assertThat(records.get(0).path("record").path("source_version").asString()).isEqualTo("3");
        assertThat(records.get(0).path("outcome").asString()).isEqualTo("VALID");
        assertThat(records.get(1).path("outcome").asString()).isEqualTo("QUARANTINED");
        assertThat(records.get(1).path("reason").asString()).contains("hook map-SPLITCO failed").contains("SP-2");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM import_job", Long.class)).isZero();
    }

    /** A UTF-16 spreadsheet export: its byte-order mark names the encoding and is no part of the first header. */
    @Test
    void aSampleWithAByteOrderMarkIsReadInItsEncodingWithoutTheMark() throws Exception {
        String export = "\uFEFFArtikelnummer;Menge;Liefertermin;Position;Version\r\n4711-A;1.200;24.12.2026;LA-1;1\r\n";
        HttpResponse<String> answer = post("/api/v1/admin/suppliers/HANSA/preview", ADMIN_KEY, "text/csv",
                export.getBytes(StandardCharsets.UTF_16LE));

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        JsonNode preview = json.readTree(answer.body());
        assertThat(preview.path("fileOutcome").isNull()).as(answer.body()).isTrue();
        JsonNode first = preview.path("records").get(0);
        assertThat(first.path("supplierFields").path("artikelnummer").asString()).isEqualTo("4711-A");
        assertThat(first.path("record").path("quantity").asString()).isEqualTo("1200");
        assertThat(first.path("outcome").asString()).isEqualTo("VALID");
    }

    /** The preview reads a sample with the record limits a job would: a huge record is shown quarantined naming it. */
    @Test
    void aRecordOverTheSizeLimitIsShownQuarantinedNamingTheLimit() throws Exception {
        String sample = "Artikelnummer;Menge;Liefertermin;Position;Version\n4711-A;1;24.12.2026;LA-1;1\n"
                + "4711-B;1;24.12.2026;LA-2;" + "9".repeat(70_000) + "\n4711-C;1;24.12.2026;LA-3;1\n";
        HttpResponse<String> answer = post("/api/v1/admin/suppliers/HANSA/preview", ADMIN_KEY, "text/csv",
                sample.getBytes(StandardCharsets.ISO_8859_1));

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        JsonNode records = json.readTree(answer.body()).path("records");
        assertThat(records).hasSize(3);
        assertThat(records.get(1).path("outcome").asString()).isEqualTo("QUARANTINED");
        assertThat(records.get(1).path("reason").asString())
                .startsWith("line 3 is larger than the limit of 65536 characters"
                        + " (ingestor.intake.max-record-size)");
        assertThat(records.get(1).path("supplierFields").path("first_characters").asString()).startsWith("4711-B;1;");
        assertThat(records.get(2).path("outcome").asString()).isEqualTo("VALID");
    }

    @Test
    void aFileAJobWouldRejectIsShownAsRejectedWithItsReason() throws Exception {
        HttpResponse<String> answer = post("/api/v1/admin/suppliers/HANSA/preview", ADMIN_KEY, "text/csv",
                "Artikelnummer;Position\n4711-A;LA-1\n".getBytes(StandardCharsets.ISO_8859_1));

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        JsonNode preview = json.readTree(answer.body());
        assertThat(preview.path("fileOutcome").asString()).isEqualTo("REJECTED");
        assertThat(preview.path("reason").asString()).contains("Menge").contains("Liefertermin");

        HttpResponse<String> empty = post("/api/v1/admin/suppliers/HANSA/preview", ADMIN_KEY, "text/csv", new byte[0]);
        assertThat(json.readTree(empty.body()).path("fileOutcome").asString()).as(empty.body()).isEqualTo("REJECTED");
    }

    @Test
    void wrongCallersUnknownSuppliersAndOutOfRangeCountsAreRefusedByName() throws Exception {
        byte[] sample = sample("hansa-lieferavis.csv");
        assertThat(post("/api/v1/admin/suppliers/HANSA/preview", ACME_KEY, "text/csv", sample).statusCode())
                .isEqualTo(403);
        assertThat(post("/api/v1/admin/suppliers/HANSA/preview", null, "text/csv", sample).statusCode()).isEqualTo(401);

        HttpResponse<String> unknown = post("/api/v1/admin/suppliers/NOBODY/preview", ADMIN_KEY, "text/csv", sample);
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("NOBODY");

        HttpResponse<String> tooMany = post("/api/v1/admin/suppliers/HANSA/preview?records=101", ADMIN_KEY, "text/csv",
                sample);
        assertThat(tooMany.statusCode()).isEqualTo(400);
        assertThat(tooMany.body()).contains("records");

        // the sample's own limit, not the 64 KB of other admin bodies: 200 KB is taken, over 1 MB is not
        byte[] large = new byte[200 * 1024];
        java.util.Arrays.fill(large, (byte) '#');
        assertThat(post("/api/v1/admin/suppliers/HANSA/preview", ADMIN_KEY, "text/csv", large).statusCode())
                .isEqualTo(200);
        HttpResponse<String> tooLarge = post("/api/v1/admin/suppliers/HANSA/preview", ADMIN_KEY, "text/csv",
                new byte[1024 * 1024 + 1]);
        assertThat(tooLarge.statusCode()).isEqualTo(413);
        assertThat(tooLarge.body()).contains("ingestor.http.max-preview-size");
    }

    private static byte[] sample(String name) throws IOException {
        try (InputStream in = SupplierPreviewTest.class.getResourceAsStream("/suppliers/" + name)) {
            return in.readAllBytes();
        }
    }
}
