package dev.ingestor.operations;

import java.io.InputStream;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import dev.ingestor.api.JobApi;
import dev.ingestor.api.JobView;
import dev.ingestor.api.QuarantineView;
import dev.ingestor.config.IngestorProperties;
import dev.ingestor.intake.IntakeFailureStore;
import dev.ingestor.job.DeadLetterStore;
import dev.ingestor.job.ImportJob;
import dev.ingestor.job.ImportJobStore;
import dev.ingestor.job.JobCounts;
import dev.ingestor.job.JobPage;
import dev.ingestor.job.JobQuery;
import dev.ingestor.job.JobState;
import dev.ingestor.job.PageCursor;
import dev.ingestor.job.PageRequest;
import dev.ingestor.outbox.OutboxStore;
import dev.ingestor.source.file.FailedDropRetry;
import dev.ingestor.source.file.RouteLeases;
import dev.ingestor.source.http.RequestKeyStore;
import dev.ingestor.validation.RecordPreview;
import dev.ingestor.web.ApiProblemException;
import dev.ingestor.web.HttpReplies;
import dev.ingestor.web.QueryParams;
import dev.ingestor.web.TenantGuard;
import org.apache.camel.Body;
import org.apache.camel.Exchange;
import org.apache.camel.Header;
import org.springframework.stereotype.Component;

/**
 * The admin API under /api/v1/admin (routes/admin-api.camel.yaml), for the admin key only: what failed and
 * why, and the actions that fix it without SQL. The admin page at /admin is a client of this API. It reads
 * through the stores that own the tables and answers errors by throwing {@link ApiProblemException}.
 */
@Component
public class AdminApi {

    private static final int DEFAULT_SIZE = 50;
    /** The dead letters a job's view holds at most, its latest. */
    static final int JOB_LETTERS = 100;
    private static final int DEFAULT_MINUTES = 60;
    /** A day of minutes: enough to look back over a night, few enough rows for one answer. */
    private static final int MAX_MINUTES = 1440;
    private static final int DEFAULT_PREVIEW_RECORDS = 20;
    /** A screenful for a person to read; the preview is for looking at a layout, not for checking a file. */
    private static final int MAX_PREVIEW_RECORDS = 100;

    private final OutboxStore outbox;
    private final ImportJobStore jobs;
    private final DeadLetterStore deadLetters;
    private final QuarantineView records;
    private final RequestKeyStore requestKeys;
    private final JobActions actions;
    private final HttpReplies replies;
    private final IntakeFailureStore intakeFailures;
    private final FailedDropRetry failedDrops;
    private final RecordPreview preview;
    private final JobCounts jobCounts;
    private final RouteLeases routeLeases;
    private final IngestorProperties properties;

    public AdminApi(OutboxStore outbox, ImportJobStore jobs, DeadLetterStore deadLetters, QuarantineView records,
            RequestKeyStore requestKeys, JobActions actions, HttpReplies replies, IntakeFailureStore intakeFailures,
            FailedDropRetry failedDrops, RecordPreview preview, JobCounts jobCounts, RouteLeases routeLeases,
            IngestorProperties properties) {
        this.properties = properties;
        this.jobCounts = jobCounts;
        this.preview = preview;
        this.routeLeases = routeLeases;
        this.intakeFailures = intakeFailures;
        this.failedDrops = failedDrops;
        this.outbox = outbox;
        this.jobs = jobs;
        this.deadLetters = deadLetters;
        this.records = records;
        this.requestKeys = requestKeys;
        this.actions = actions;
        this.replies = replies;
    }

    /**
     * Jobs per supplier and state (from the counts the database keeps, {@link JobCounts}), dead letters waiting,
     * the outbox's backlog, and which instance polls each supplier's SFTP server.
     */
    public void overview(Exchange exchange) {
        Map<String, Map<String, Long>> perSupplier = new TreeMap<>();
        Map<String, Long> perState = new LinkedHashMap<>();
        for (JobState state : JobState.values()) {
            perState.put(state.name(), 0L);
        }
        jobCounts.bySupplierAndState().forEach((supplier, counts) -> counts.forEach((state, count) -> {
            perSupplier.computeIfAbsent(supplier, s -> new TreeMap<>()).put(state.name(), count);
            perState.merge(state.name(), count, Long::sum);
        }));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("states", perState);
        body.put("suppliers", perSupplier);
        body.put("deadLettersWaiting", deadLetters.waiting());
        body.put("outboxPending", outbox.pending());
        // which instance polls each supplier's SFTP server (docs/operations.md, Who polls a supplier's SFTP server)
        body.put("sftpLeaders", routeLeases.current());
        body.put("generatedAt", Instant.now());
        replies.json(exchange, 200, body);
    }

    /**
     * Jobs by state, supplier and time (received since / until), newest first: the job list of every supplier,
     * by cursor ({@code after}) or by page number with the total ({@code page}). {@code q} finds jobs by id (the
     * whole UUID), part of the file name, or the start of the key.
     */
    public void jobs(@Header("supplier") String supplier, @Header("state") String state, @Header("since") String since,
            @Header("until") String until, @Header("q") String q, @Header("page") String page,
            @Header("after") String after, @Header("size") String size, Exchange exchange) {
        int pageNo = QueryParams.number("page", page, 0);
        int pageSize = QueryParams.number("size", size, DEFAULT_SIZE);
        QueryParams.page(pageNo, pageSize);
        // JobQuery.searchRefusal says what a search may not hold
        String search = q == null || q.isBlank() ? null : q.trim();
        String refusal = JobQuery.searchRefusal(search);
        if (refusal != null) {
            throw QueryParams.invalid(refusal);
        }
        boolean numbered = QueryParams.byPageNumber(page, after);
        JobPage result = jobs.list(new JobQuery(QueryParams.text("supplier", supplier), QueryParams.state(state),
                instant("since", since), instant("until", until), search, pageNo, pageSize,
                QueryParams.jobCursor(after), numbered));
        replies.json(exchange, 200,
                JobApi.JobList.of(result.items().stream().map(JobView::whole).toList(), result));
    }

    /**
     * Per minute for the last {@code minutes} minutes (the current minute last): jobs received, jobs finished by
     * end state, the records of the jobs finished that minute by outcome, and intake failures. Empty minutes are
     * zeros, so a chart needs no gaps filled.
     */
    public void throughput(@Header("minutes") String minutes, Exchange exchange) {
        int span = QueryParams.number("minutes", minutes, DEFAULT_MINUTES);
        if (span < 1 || span > MAX_MINUTES) {
            throw QueryParams.invalid("minutes must be between 1 and " + MAX_MINUTES + ", was " + span);
        }
        // one grid for both queries, so their minutes line up
        Instant to = Instant.now().truncatedTo(ChronoUnit.MINUTES);
        Instant from = to.minus(span - 1L, ChronoUnit.MINUTES);
        List<ImportJobStore.MinuteOfJobs> jobMinutes = jobs.perMinute(from, to);
        List<Long> failures = intakeFailures.perMinute(from, to);
        List<Throughput.Minute> items = new ArrayList<>(jobMinutes.size());
        for (int i = 0; i < jobMinutes.size(); i++) {
            ImportJobStore.MinuteOfJobs m = jobMinutes.get(i);
            items.add(new Throughput.Minute(m.minute(), m.received(), m.completed(), m.completedWithErrors(),
                    m.rejected(), m.failed(), m.accepted(), m.updated(), m.replayed(), m.quarantined(),
                    i < failures.size() ? failures.get(i) : 0));
        }
        replies.json(exchange, 200, new Throughput(span, items));
    }

    /** One job with its quarantined records (first page) and its latest {@link #JOB_LETTERS} dead letters. */
    public void job(@Header("id") String id, Exchange exchange) {
        UUID jobId = QueryParams.jobId(id);
        ImportJob job = jobs.find(jobId).orElseThrow(() -> ApiProblemException.notFound("no job with id " + jobId));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("job", JobView.whole(job));
        body.put("quarantined", records.quarantined(jobId, new PageRequest(false, 0, 100, null)));
        DeadLetterStore.JobLetters letters = deadLetters.ofJob(jobId, JOB_LETTERS);
        body.put("deadLetters", letters.letters());
        // the rest are in the dead letters' list, newest first
        body.put("earlierDeadLetters", letters.more());
        replies.json(exchange, 200, body);
    }

    /**
     * FAILED jobs, a page at a time (by cursor, or by page number with the total), each with the exception,
     * message, attempts and stage of its last dead letter.
     */
    public void failedJobs(@Header("supplier") String supplier, @Header("page") String page,
            @Header("after") String after, @Header("size") String size, Exchange exchange) {
        PageRequest request = pageRequest(page, after, size);
        replies.json(exchange, 200, deadLetters.failedJobs(QueryParams.text("supplier", supplier),
                new PageRequest(request.numbered(), request.page(), request.size(), QueryParams.jobCursor(after))));
    }

    /** Dead letters, newest first, a page at a time. */
    public void deadLetters(@Header("page") String page, @Header("after") String after, @Header("size") String size,
            Exchange exchange) {
        PageRequest request = pageRequest(page, after, size);
        Long afterId = QueryParams.idCursor(after);
        replies.json(exchange, 200, deadLetters.page(new PageRequest(request.numbered(), request.page(),
                request.size(), afterId == null ? null : PageCursor.ofId(afterId))));
    }

    /** Files rejected or failed at intake (they never became a job), newest first, a page at a time. */
    public void intakeFailures(@Header("supplier") String supplier, @Header("source") String source,
            @Header("page") String page, @Header("after") String after, @Header("size") String size,
            Exchange exchange) {
        PageRequest request = pageRequest(page, after, size);
        PageCursor cursor = QueryParams.timedCursor(after);
        // an intake failure's id is a number
        QueryParams.idCursor(after);
        replies.json(exchange, 200,
                intakeFailures.page(QueryParams.text("supplier", supplier), QueryParams.text("source", source),
                        new PageRequest(request.numbered(), request.page(), request.size(), cursor)));
    }

    /** Page number or cursor, and size, checked as every list does; the cursor is read by each list. */
    private static PageRequest pageRequest(String page, String after, String size) {
        boolean numbered = QueryParams.byPageNumber(page, after);
        int pageNo = QueryParams.number("page", page, 0);
        int pageSize = QueryParams.number("size", size, DEFAULT_SIZE);
        QueryParams.page(pageNo, pageSize);
        return new PageRequest(numbered, pageNo, pageSize, null);
    }

    /** A dropped file that failed at intake back into its supplier's inbox folder, where it is taken again. */
    public void retryIntakeFailure(@Header("id") String id, Exchange exchange) {
        long failure = number("intake failure", id);
        FailedDropRetry.Result result = failedDrops.retry(failure, who(exchange))
                .orElseThrow(() -> ApiProblemException.notFound("no intake failure with id " + failure));
        if (result.movedTo() == null) {
            throw ApiProblemException.conflict("not-possible-now", result.refusal());
        }
        replies.json(exchange, 202, Map.of("result", "moved back to the inbox", "file", result.movedTo().toString()));
    }

    public void requestKey(@Header("supplier") String supplier, @Header("key") String key, Exchange exchange) {
        String named = requestKeyNamed(key);
        replies.json(exchange, 200, requestKeys.find(supplier, named).orElseThrow(
                () -> ApiProblemException.notFound("no Idempotency-Key '" + named + "' of supplier '" + supplier
                        + "'")));
    }

    /**
     * {@code ?owner=}: the owner the operator saw; a key another request has taken over since (a retry after the
     * owner's lease ran out) is left to it (409).
     */
    public void releaseRequestKey(@Header("supplier") String supplier, @Header("key") String key,
            @Header("owner") String owner, Exchange exchange) {
        String expectedOwner = owner == null || owner.isEmpty() ? null : QueryParams.text("owner", owner);
        answer(exchange, requestKeys.releaseInProgress(supplier, requestKeyNamed(key), expectedOwner, who(exchange)),
                "released", "Idempotency-Key '" + key + "' of supplier '" + supplier + "' is not in progress"
                        + (expectedOwner == null ? "" : " under " + expectedOwner + " (taken over or finished since)")
                        + " (or unknown); nothing to release");
    }

    /** The key of a request-key call, from its path or its {@code ?key=}; none is a 400. */
    private static String requestKeyNamed(String key) {
        if (key == null || key.isEmpty()) {
            throw ApiProblemException.badRequest("invalid-parameter",
                    "name the Idempotency-Key: /admin/idempotency-keys/{supplier}?key=... (or .../{supplier}/{key})");
        }
        return key;
    }

    /** {@code ?expectedState=}: the state the operator saw; a job in another state now is left as it is (409). */
    public void revalidate(@Header("id") String id, @Header(EXPECTED_STATE) String expectedState, Exchange exchange) {
        UUID jobId = QueryParams.jobId(id);
        JobState expected = QueryParams.state(expectedState);
        answer(exchange, actions.revalidate(jobId, expected, who(exchange)), "queued for validation",
                "job " + jobId + " is unknown or not at rest (a worker holds it)" + notAsSeen(expected)
                        + "; try again when it has finished");
    }

    public void reprocess(@Header("id") String id, @Header(EXPECTED_STATE) String expectedState, Exchange exchange) {
        UUID jobId = QueryParams.jobId(id);
        JobState expected = QueryParams.state(expectedState);
        answer(exchange, actions.reprocess(jobId, expected, who(exchange)), "queued for processing",
                "job " + jobId + " is unknown, not finished, or was never validated (re-validate it instead)"
                        + notAsSeen(expected));
    }

    /** The query parameter naming the state a job action expects its job in. */
    static final String EXPECTED_STATE = "expectedState";

    private static String notAsSeen(JobState expected) {
        return expected == null ? "" : ", or is no longer " + expected + " as expected (reload it)";
    }

    public void replayDeadLetter(@Header("id") String id, Exchange exchange) {
        long letter = number("dead letter", id);
        JobActions.Replay replay = actions.replayDeadLetter(letter, who(exchange));
        answer(exchange, replay != JobActions.Replay.REFUSED,
                replay == JobActions.Replay.ACKNOWLEDGED
                        ? "acknowledged: Kafka refused this event for good; its effect stands and it is not sent again"
                        : "queued again",
                "dead letter " + letter + " is unknown, already replayed, or its job is no longer FAILED");
    }

    /** Every waiting letter of an event of the job that Kafka refused for good, marked seen at once. */
    public void acknowledgeRefusedEvents(@Header("id") String id, Exchange exchange) {
        UUID jobId = QueryParams.jobId(id);
        int acknowledged = actions.acknowledgeRefusedEvents(jobId, who(exchange));
        answer(exchange, acknowledged > 0,
                acknowledged + " refused event(s) acknowledged: their effects stand and they are not sent again",
                "job " + jobId + " is unknown or has no refused event waiting");
    }

    public void retryFailed(@Header("supplier") String supplier, Exchange exchange) {
        if (!properties.getSuppliers().containsKey(supplier)) {
            throw ApiProblemException.notFound("no supplier '" + supplier + "' is configured");
        }
        int count = actions.retryFailed(supplier, who(exchange));
        replies.json(exchange, 202, Map.of("supplier", supplier, "jobs", count));
    }

    /** A sample file through the supplier's mapping and the record rules; nothing is stored. */
    public void preview(@Header("supplier") String supplier, @Header("records") String records,
            @Body InputStream sample,
            Exchange exchange) {
        int limit = QueryParams.number("records", records, DEFAULT_PREVIEW_RECORDS);
        if (limit < 1 || limit > MAX_PREVIEW_RECORDS) {
            throw QueryParams.invalid("records must be between 1 and " + MAX_PREVIEW_RECORDS + ", was " + limit);
        }
        RecordPreview.Preview answer = preview
                .preview(supplier, sample == null ? InputStream.nullInputStream() : sample, limit)
                .orElseThrow(() -> ApiProblemException.notFound("no supplier '" + supplier + "' is configured"));
        replies.json(exchange, 200, answer);
    }

    /** 202 when the action was taken, otherwise 409: the state of the job or key does not allow it now. */
    private void answer(Exchange exchange, boolean done, String what, String refusal) {
        if (!done) {
            throw ApiProblemException.conflict("not-possible-now", refusal);
        }
        replies.json(exchange, 202, Map.of("result", what));
    }

    private static String who(Exchange exchange) {
        return TenantGuard.caller(exchange).name();
    }

    private static long number(String what, String id) {
        try {
            return Long.parseLong(id);
        } catch (NumberFormatException e) {
            throw ApiProblemException.badRequest("bad-path", what + " id '" + id + "' is not a number");
        }
    }

    private static Instant instant(String name, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        Instant at;
        try {
            at = Instant.parse(value.trim());
        } catch (DateTimeParseException e) {
            throw ApiProblemException.badRequest("invalid-query",
                    name + " '" + value + "' is not an ISO instant such as 2026-11-23T00:00:00Z");
        }
        if (!PageCursor.isListTime(at)) {
            throw ApiProblemException.badRequest("invalid-query",
                    name + " '" + value + "' is outside the years 1 to 9999");
        }
        return at;
    }
}
