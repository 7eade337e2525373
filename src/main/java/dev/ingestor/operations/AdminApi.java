package dev.ingestor.operations;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import dev.ingestor.web.HttpReplies;
import dev.ingestor.web.JobView;
import dev.ingestor.web.Problem;
import dev.ingestor.web.QueryParams;
import dev.ingestor.web.QuarantineView;
import dev.ingestor.web.ApiProblemException;
import dev.ingestor.web.TenantGuard;
import dev.ingestor.job.ImportJob;
import dev.ingestor.job.ImportJobStore;
import dev.ingestor.job.JobState;
import org.apache.camel.Exchange;
import org.apache.camel.Header;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The admin API under /api/v1/admin (routes/admin-api.camel.yaml), for the admin key only: what failed and
 * why, and the actions that fix it without SQL. The admin page at /admin is a client of this API.
 */
@Component
public class AdminApi {

    private final JdbcTemplate jdbc;
    private final ImportJobStore jobs;
    private final QuarantineView records;
    private final JobActions actions;
    private final HttpReplies replies;

    public AdminApi(JdbcTemplate jdbc, ImportJobStore jobs, QuarantineView records, JobActions actions, HttpReplies replies) {
        this.jdbc = jdbc;
        this.jobs = jobs;
        this.records = records;
        this.actions = actions;
        this.replies = replies;
    }

    /** Jobs per supplier and state, failed jobs, dead letters waiting, the outbox's backlog. */
    public void overview(Exchange exchange) {
        Map<String, Map<String, Long>> perSupplier = new TreeMap<>();
        Map<String, Long> perState = new LinkedHashMap<>();
        for (JobState state : JobState.values()) {
            perState.put(state.name(), 0L);
        }
        jdbc.query("SELECT supplier, state, count(*) FROM import_job GROUP BY supplier, state", rs -> {
            perSupplier.computeIfAbsent(rs.getString(1), s -> new TreeMap<>()).put(rs.getString(2), rs.getLong(3));
            perState.merge(rs.getString(2), rs.getLong(3), Long::sum);
        });
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("states", perState);
        body.put("suppliers", perSupplier);
        body.put("deadLettersWaiting", jdbc.queryForObject("SELECT count(*) FROM dead_letter WHERE replayed_at IS NULL", Long.class));
        body.put("outboxPending", jdbc.queryForObject("SELECT count(*) FROM outbox WHERE published_at IS NULL", Long.class));
        body.put("generatedAt", Instant.now());
        replies.json(exchange, 200, body);
    }

    /** Jobs by state, supplier and time (received since / until), newest first. */
    public void jobs(@Header("supplier") String supplier, @Header("state") String state, @Header("since") String since,
                     @Header("until") String until, @Header("page") String page, @Header("size") String size, Exchange exchange) {
        int pageNo = QueryParams.number("page", page, 0);
        int pageSize = QueryParams.number("size", size, 50);
        QueryParams.page(pageNo, pageSize);
        StringBuilder where = new StringBuilder(" WHERE true");
        List<Object> args = new java.util.ArrayList<>();
        if (supplier != null && !supplier.isBlank()) {
            where.append(" AND supplier = ?");
            args.add(supplier.trim());
        }
        if (state != null && !state.isBlank()) {
            where.append(" AND state = ?");
            args.add(QueryParams.state(state).name());
        }
        if (since != null && !since.isBlank()) {
            where.append(" AND received_at >= ?");
            args.add(java.sql.Timestamp.from(instant("since", since)));
        }
        if (until != null && !until.isBlank()) {
            where.append(" AND received_at < ?");
            args.add(java.sql.Timestamp.from(instant("until", until)));
        }
        Long total = jdbc.queryForObject("SELECT count(*) FROM import_job" + where, Long.class, args.toArray());
        args.add(pageSize);
        args.add((long) pageNo * pageSize);
        List<JobView> items = jdbc.query("SELECT " + ImportJobStore.COLUMNS + " FROM import_job" + where
                + " ORDER BY received_at DESC, id DESC LIMIT ? OFFSET ?", ImportJobStore.JOB, args.toArray())
                .stream().map(JobView::of).toList();
        replies.json(exchange, 200, Map.of("items", items, "page", pageNo, "size", pageSize, "total", total == null ? 0 : total));
    }

    /** One job with its quarantined records (first page) and its dead letters. */
    public void job(@Header("id") String id, Exchange exchange) {
        UUID jobId = QueryParams.jobId(id);
        ImportJob job = jobs.find(jobId).orElseThrow(() -> ApiProblemException.notFound("no job with id " + jobId));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("job", JobView.of(job));
        body.put("quarantined", records.quarantined(jobId, 0, 100));
        body.put("deadLetters", deadLetterRows("WHERE d.job_id = ?", jobId));
        replies.json(exchange, 200, body);
    }

    /** FAILED jobs, each with the exception, message, attempts and stage of its last dead letter. */
    public void failedJobs(@Header("supplier") String supplier, Exchange exchange) {
        List<Object> args = new java.util.ArrayList<>();
        String bySupplier = "";
        if (supplier != null && !supplier.isBlank()) {
            bySupplier = " AND j.supplier = ?";
            args.add(supplier.trim());
        }
        List<Map<String, Object>> rows = jdbc.queryForList("""
                SELECT j.id, j.supplier, j.file_name AS "fileName", j.key, j.error, j.updated_at AS "failedAt",
                       d.id AS "deadLetterId", d.stage, d.exception, d.message, d.attempts
                FROM import_job j
                LEFT JOIN LATERAL (SELECT * FROM dead_letter x WHERE x.job_id = j.id ORDER BY x.id DESC LIMIT 1) d ON true
                WHERE j.state = 'FAILED'""" + bySupplier + " ORDER BY j.updated_at DESC LIMIT 500", args.toArray());
        replies.json(exchange, 200, Map.of("items", rows, "total", rows.size()));
    }

    public void deadLetters(@Header("page") String page, @Header("size") String size, Exchange exchange) {
        int pageNo = QueryParams.number("page", page, 0);
        int pageSize = QueryParams.number("size", size, 50);
        QueryParams.page(pageNo, pageSize);
        List<Map<String, Object>> rows = deadLetterRows("ORDER BY d.id DESC LIMIT " + pageSize + " OFFSET " + ((long) pageNo * pageSize));
        replies.json(exchange, 200, Map.of("items", rows, "page", pageNo, "size", pageSize,
                "total", jdbc.queryForObject("SELECT count(*) FROM dead_letter", Long.class)));
    }

    public void requestKey(@Header("partner") String partner, @Header("key") String key, Exchange exchange) {
        List<Map<String, Object>> rows = jdbc.queryForList("SELECT partner, idempotency_key AS \"key\", state, fingerprint,"
                + " owner, lease_until AS \"leaseUntil\", status, job_id AS \"jobId\", created_at AS \"createdAt\","
                + " completed_at AS \"completedAt\", expires_at AS \"expiresAt\" FROM http_request"
                + " WHERE partner = ? AND idempotency_key = ?", partner, key);
        if (rows.isEmpty()) {
            throw ApiProblemException.notFound("no Idempotency-Key '" + key + "' of partner '" + partner + "'");
        }
        replies.json(exchange, 200, rows.get(0));
    }

    public void releaseRequestKey(@Header("partner") String partner, @Header("key") String key, Exchange exchange) {
        answer(exchange, actions.releaseRequestKey(partner, key, who(exchange)), "released",
                "Idempotency-Key '" + key + "' of partner '" + partner + "' is not in progress (or unknown); nothing to release");
    }

    public void revalidate(@Header("id") String id, Exchange exchange) {
        UUID jobId = QueryParams.jobId(id);
        answer(exchange, actions.revalidate(jobId, who(exchange)), "queued for validation",
                "job " + jobId + " is unknown or not at rest (a worker holds it); try again when it has finished");
    }

    public void reprocess(@Header("id") String id, Exchange exchange) {
        UUID jobId = QueryParams.jobId(id);
        answer(exchange, actions.reprocess(jobId, who(exchange)), "queued for processing",
                "job " + jobId + " is unknown, not finished, or was never validated (re-validate it instead)");
    }

    public void replayDeadLetter(@Header("id") String id, Exchange exchange) {
        long letter;
        try {
            letter = Long.parseLong(id);
        } catch (NumberFormatException e) {
            throw ApiProblemException.badRequest("bad-path", "dead letter id '" + id + "' is not a number");
        }
        answer(exchange, actions.replayDeadLetter(letter, who(exchange)), "queued again",
                "dead letter " + letter + " is unknown, already replayed, or its job is no longer FAILED");
    }

    public void retryFailed(@Header("supplier") String supplier, Exchange exchange) {
        int count = actions.retryFailed(supplier, who(exchange));
        replies.json(exchange, 202, Map.of("supplier", supplier, "jobs", count));
    }

    private void answer(Exchange exchange, boolean done, String what, String refusal) {
        if (done) {
            replies.json(exchange, 202, Map.of("result", what));
        } else {
            replies.problem(exchange, Problem.of(409, "not-possible-now", "Conflict", refusal));
        }
    }

    private List<Map<String, Object>> deadLetterRows(String tail, Object... args) {
        return jdbc.queryForList("SELECT d.id, d.job_id AS \"jobId\", j.supplier, d.stage, d.exception, d.message, d.attempts,"
                + " d.created_at AS \"createdAt\", d.replayed_at AS \"replayedAt\", d.replayed_by AS \"replayedBy\""
                + " FROM dead_letter d LEFT JOIN import_job j ON j.id = d.job_id " + tail, args);
    }

    private static String who(Exchange exchange) {
        return TenantGuard.caller(exchange).name();
    }

    private static Instant instant(String name, String value) {
        try {
            return Instant.parse(value.trim());
        } catch (DateTimeParseException e) {
            throw ApiProblemException.badRequest("invalid-query", name + " '" + value + "' is not an ISO instant such as 2026-11-23T00:00:00Z");
        }
    }

}
