package dev.ingestor.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ingestor.job.PageCursor;
import dev.ingestor.job.PageRequest;
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

    /**
     * A page of a job's quarantined records, in file order: {@code more} whether records follow, {@code next} the
     * cursor to ask for them with ({@code after}); {@code page} and {@code total} only when asked for by number.
     */
    public record RecordList(List<RecordView> items, @JsonInclude(JsonInclude.Include.NON_NULL) Integer page,
            int size, @JsonInclude(JsonInclude.Include.NON_NULL) Long total, boolean more, String next) {
    }

    /**
     * The page {@code request} of a job's quarantined records; a cursor's id is the record number the page before
     * ended with, read on from there through the primary key (job_id, record_no).
     */
    public RecordList quarantined(UUID jobId, PageRequest request) {
        Long total = request.numbered()
                ? jdbc.queryForObject("SELECT count(*) FROM job_record WHERE job_id = ?", Long.class, jobId)
                : null;
        List<Object> args = new ArrayList<>(List.of(jobId));
        String after = "";
        if (request.after() != null) {
            after = " AND record_no > ?";
            args.add(request.after().numericId());
        }
        List<RecordView> rows = jdbc.query("SELECT record_no, line, outcome, source_id, reason, fields::text AS fields"
                + " FROM job_record WHERE job_id = ?" + after + " ORDER BY record_no LIMIT ? OFFSET ?",
                (rs, row) -> new RecordView(rs.getLong("record_no"), rs.getLong("line"), rs.getString("outcome"),
                        rs.getString("source_id"), rs.getString("reason"), fields(rs.getString("fields"))),
                request.limitAndOffset(args));
        boolean more = rows.size() > request.size();
        List<RecordView> items = more ? rows.subList(0, request.size()) : rows;
        return new RecordList(items, request.numbered() ? request.page() : null, request.size(), total, more,
                more ? PageCursor.ofId(items.get(items.size() - 1).recordNo()).text() : null);
    }

    private Map<String, String> fields(String text) {
        try {
            return text == null ? Map.of() : json.readValue(text, new TypeReference<Map<String, String>>() {});
        } catch (Exception e) {
            return Map.of();
        }
    }
}
