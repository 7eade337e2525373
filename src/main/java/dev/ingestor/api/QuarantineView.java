package dev.ingestor.api;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.ObjectMapper;

/** Quarantined records of a job, as the records API lists them. */
@Component
public class QuarantineView {

    private final JdbcTemplate jdbc;
    private final ObjectMapper json;

    public QuarantineView(JdbcTemplate jdbc, ObjectMapper json) {
        this.jdbc = jdbc;
        this.json = json;
    }

    /** A record kept with the reason it was not applied. */
    public record RecordView(long recordNo, long line, String outcome, String sourceId, String reason,
            Map<String, String> fields) {
    }

    /** A page of a job's quarantined records, in file order. */
    public record RecordList(List<RecordView> items, int page, int size, long total) {
    }

    public RecordList quarantined(UUID jobId, int page, int size) {
        long total = jdbc.queryForObject("SELECT count(*) FROM job_record WHERE job_id = ?", Long.class, jobId);
        List<RecordView> items = jdbc.query("SELECT record_no, line, outcome, source_id, reason, fields::text AS fields"
                + " FROM job_record WHERE job_id = ? ORDER BY record_no LIMIT ? OFFSET ?",
                (rs, row) -> new RecordView(rs.getLong("record_no"), rs.getLong("line"), rs.getString("outcome"),
                        rs.getString("source_id"), rs.getString("reason"), fields(rs.getString("fields"))),
                jobId, size, (long) page * size);
        return new RecordList(items, page, size, total);
    }

    private Map<String, String> fields(String text) {
        try {
            return text == null ? Map.of() : json.readValue(text, new TypeReference<Map<String, String>>() {});
        } catch (Exception e) {
            return Map.of();
        }
    }
}
