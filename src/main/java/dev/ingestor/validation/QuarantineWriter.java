package dev.ingestor.validation;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.config.DatabaseTimeouts;
import dev.ingestor.config.JsonNesting;
import dev.ingestor.logging.SafeText;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectMapper;

/** Keeps quarantined records with their reasons (job_record), for the records API. */
@Component
public class QuarantineWriter {

    private static final ObjectMapper JSON = JsonNesting.mapper();

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;

    public QuarantineWriter(JdbcTemplate jdbc, PlatformTransactionManager transactionManager) {
        this.jdbc = jdbc;
        this.transactions = new TransactionTemplate(transactionManager);
    }

    /**
     * Deletes a job's quarantine, for a run that starts from a clean slate: in a transaction of its own without the
     * statement time limit, since a file of millions of bad records has that many rows to delete.
     */
    public void clear(UUID jobId) {
        transactions.executeWithoutResult(status -> {
            DatabaseTimeouts.noTimeLimitInThisTransaction(jdbc);
            jdbc.update("DELETE FROM job_record WHERE job_id = ?", jobId);
        });
    }

    /**
     * {@link #clear}, for validation's clean slate, only while {@code lease} holds the job in validation, judged by the
     * statement that deletes: a worker that found it held and was then paused past its lease (a GC pause, a frozen VM)
     * while another worker took the job over and quarantined its records clears nothing of theirs. Rows written after
     * the takeover are never in this statement's view, and the takeover is: it then deletes nothing. False when the
     * lease no longer holds the job.
     */
    public boolean clearWhileHeld(UUID jobId, String lease) {
        return Boolean.TRUE.equals(transactions.execute(status -> {
            DatabaseTimeouts.noTimeLimitInThisTransaction(jdbc);
            return jdbc.queryForObject("""
                    WITH held AS (SELECT id FROM import_job WHERE id = ? AND lease_owner = ? AND state = 'VALIDATING'),
                         cleared AS (DELETE FROM job_record WHERE job_id = (SELECT id FROM held))
                    SELECT EXISTS (SELECT 1 FROM held)""", Boolean.class, jobId, lease);
        }));
    }

    /** Inserts the rows made by {@link #row} in one batch and empties the list. */
    public void insert(List<Object[]> rows) {
        if (!rows.isEmpty()) {
            jdbc.batchUpdate("INSERT INTO job_record (job_id, record_no, line, outcome, source_id, reason, fields)"
                    + " VALUES (?, ?, ?, 'QUARANTINED', ?, ?, ?::jsonb)", rows);
            rows.clear();
        }
    }

    /**
     * Inserts validation's rows made by {@link #row} for job {@code jobId} in one statement, and only while
     * {@code lease} holds the job in validation; empties the list. The job's row is share-locked until the statement
     * commits, so a hand-back or a takeover waits for it and the next owner's clean slate sees these rows: a worker
     * still running after its job was handed back (past the shutdown timeout) writes nothing the next owner would
     * collide with. False when the lease no longer holds the job: nothing was written.
     */
    public boolean insertWhileHeld(List<Object[]> rows, UUID jobId, String lease) {
        if (rows.isEmpty()) {
            return true;
        }
        int n = rows.size();
        Long[] recordNo = new Long[n];
        Long[] line = new Long[n];
        String[] sourceId = new String[n];
        String[] reason = new String[n];
        String[] fields = new String[n];
        for (int i = 0; i < n; i++) {
            Object[] row = rows.get(i);
            recordNo[i] = ((Number) row[1]).longValue();
            line[i] = ((Number) row[2]).longValue();
            sourceId[i] = (String) row[3];
            reason[i] = (String) row[4];
            fields[i] = (String) row[5];
        }
        int inserted = jdbc.update("""
                INSERT INTO job_record (job_id, record_no, line, outcome, source_id, reason, fields)
                SELECT j.id, r.record_no, r.line, 'QUARANTINED', r.source_id, r.reason, r.fields::jsonb
                FROM (SELECT id FROM import_job WHERE id = ? AND lease_owner = ? AND state = 'VALIDATING' FOR SHARE) j,
                     unnest(?::bigint[], ?::bigint[], ?::text[], ?::text[], ?::text[])
                       AS r(record_no, line, source_id, reason, fields)""", jobId, lease, recordNo, line, sourceId,
                reason, fields);
        rows.clear();
        return inserted > 0;
    }

    /**
     * The most characters of JSON a quarantined record keeps of its fields. A record is bounded in characters of its
     * text, but each control character in it is kept as an escape of six or seven: without this bound the thousand
     * rows a validation writes at once could hold hundreds of megabytes for one crafted file.
     */
    static final int FIELDS_KEPT = 32 * 1024;
    /** The key of the note that says how many of a record's fields were not kept. */
    static final String MORE_FIELDS = "\u2026";

    public static Object[] row(UUID jobId, Validated record) {
        RawRecord raw = record.raw();
        String sourceId = raw.fields().get("source_id");
        Map<String, String> fields = new LinkedHashMap<>();
        long kept = 0;
        int left = raw.fields().size();
        for (Map.Entry<String, String> field : raw.fields().entrySet()) {
            String name = SafeText.of(field.getKey(), 200);
            String value = SafeText.of(field.getValue(), 2000);
            kept += jsonLength(name) + jsonLength(value) + 6;
            if (kept > FIELDS_KEPT) {
                fields.put(MORE_FIELDS, left + " more field(s) not kept: a quarantined record keeps " + FIELDS_KEPT
                        + " characters of its fields");
                break;
            }
            fields.put(name, value);
            left--;
        }
        try {
            return new Object[] {jobId, raw.index(), Math.max(raw.line(), 0), SafeText.of(sourceId, 128),
                    SafeText.of(record.reason()), JSON.writeValueAsString(fields)};
        } catch (JacksonException e) {
            throw new IllegalStateException("a map of strings is always JSON", e);
        }
    }

    /** How long {@code text} is as a JSON string's content (a quote and a backslash are escaped), or as null. */
    private static long jsonLength(String text) {
        if (text == null) {
            return 4;
        }
        long length = text.length();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                length++;
            }
        }
        return length;
    }
}
