package dev.ingestor.api;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ingestor.job.PageCursor;
import dev.ingestor.validation.DeliveryAdviceValidator;
import dev.ingestor.web.ApiProblemException;
import dev.ingestor.web.HttpReplies;
import dev.ingestor.web.QueryParams;
import dev.ingestor.web.TenantGuard;
import org.apache.camel.Exchange;
import org.apache.camel.Header;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * GET /api/v1/suppliers/{supplier}/items/{sourceId}/versions (routes/api-items.camel.yaml): an item's history,
 * one entry per effect, newest first, paged. A supplier reaches only its own items; an unknown item is 404.
 */
@Component
public class ItemVersionApi {

    private static final int DEFAULT_SIZE = 50;

    private final JdbcTemplate jdbc;
    private final ObjectMapper json;
    private final TenantGuard tenants;
    private final HttpReplies replies;

    public ItemVersionApi(JdbcTemplate jdbc, ObjectMapper json, TenantGuard tenants, HttpReplies replies) {
        this.jdbc = jdbc;
        this.json = json;
        this.tenants = tenants;
        this.replies = replies;
    }

    /** One effect on the item: what it became, by which job, under which event id. */
    public record ItemVersion(long revision, Long sourceVersion, String outcome, String state, JsonNode record,
            String jobId, String eventId, OffsetDateTime recordedAt) {
    }

    /**
     * A page of an item's versions, newest first: {@code more} whether older ones follow, {@code next} the cursor to
     * ask for them with ({@code after}); {@code page} and {@code total} unless asked for by cursor.
     */
    public record ItemVersionList(List<ItemVersion> items, @JsonInclude(JsonInclude.Include.NON_NULL) Integer page,
            int size, @JsonInclude(JsonInclude.Include.NON_NULL) Long total, boolean more, String next) {
    }

    public void versions(@Header("sourceId") String sourceId, @Header("page") String page,
            @Header("after") String after, @Header("size") String size, Exchange exchange) {
        String supplier = tenants.supplierFor(exchange, "supplier");
        boolean numbered = JobApi.counted(page, after);
        Long afterRevision = QueryParams.idCursor(after);
        int pageNo = QueryParams.number("page", page, 0);
        int pageSize = QueryParams.number("size", size, DEFAULT_SIZE);
        QueryParams.page(pageNo, pageSize);
        if (sourceId == null || sourceId.isBlank()
                || sourceId.length() > DeliveryAdviceValidator.MAX_SOURCE_ID_LENGTH) {
            throw ApiProblemException.badRequest("bad-path", "path segment {sourceId} must be 1 to "
                    + DeliveryAdviceValidator.MAX_SOURCE_ID_LENGTH + " characters");
        }
        Long total = jdbc.query("SELECT CASE WHEN ? THEN (SELECT count(*) FROM item_version v"
                + " WHERE v.supplier = i.supplier AND v.source_id = i.source_id) ELSE -1 END"
                + " FROM item i WHERE i.supplier = ? AND i.source_id = ?",
                rs -> rs.next() ? rs.getLong(1) : null, numbered, supplier, sourceId);
        if (total == null) {
            throw ApiProblemException.notFound("no item '" + dev.ingestor.logging.SafeText.of(sourceId, 128)
                    + "' of supplier '" + supplier + "'");
        }
        List<ItemVersion> rows = jdbc.query("SELECT revision, source_version, outcome, state, record::text AS record,"
                + " job_id, event_id, recorded_at FROM item_version WHERE supplier = ? AND source_id = ?"
                + " AND revision < ? ORDER BY revision DESC LIMIT ? OFFSET ?",
                (rs, row) -> new ItemVersion(rs.getLong("revision"), rs.getObject("source_version", Long.class),
                        rs.getString("outcome"), rs.getString("state"), tree(rs.getString("record")),
                        rs.getObject("job_id", UUID.class).toString(), rs.getObject("event_id", UUID.class).toString(),
                        rs.getObject("recorded_at", OffsetDateTime.class)),
                supplier, sourceId, afterRevision == null ? Long.MAX_VALUE : afterRevision, pageSize + 1,
                numbered ? (long) pageNo * pageSize : 0L);
        boolean more = rows.size() > pageSize;
        List<ItemVersion> items = more ? rows.subList(0, pageSize) : rows;
        replies.json(exchange, 200, new ItemVersionList(items, numbered ? pageNo : null, pageSize,
                numbered ? total : null, more,
                more ? PageCursor.ofId(items.get(items.size() - 1).revision()).text() : null));
    }

    private JsonNode tree(String text) {
        try {
            return json.readTree(text);
        } catch (Exception e) {
            throw new IllegalStateException(
                    "an item's record is stored as the canonical JSON the processing stage made of it", e);
        }
    }
}
