package dev.ingestor.api;

import java.util.List;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ingestor.job.ImportJob;
import dev.ingestor.job.ImportJobStore;
import dev.ingestor.job.JobPage;
import dev.ingestor.job.JobQuery;
import dev.ingestor.job.JobState;
import dev.ingestor.job.PageCursor;
import dev.ingestor.job.PageRequest;
import dev.ingestor.web.ApiProblemException;
import dev.ingestor.web.Caller;
import dev.ingestor.web.HttpReplies;
import dev.ingestor.web.QueryParams;
import dev.ingestor.web.TenantGuard;
import org.apache.camel.Exchange;
import org.apache.camel.Header;
import org.springframework.stereotype.Component;

/**
 * The read side of jobs, called by the REST routes in routes/api-jobs.camel.yaml; a refusal is an
 * {@link ApiProblemException}, answered by the routes' error handling.
 */
@Component
public class JobApi {

    private static final int DEFAULT_SIZE = 50;

    private final ImportJobStore jobs;
    private final QuarantineView records;
    private final HttpReplies replies;

    public JobApi(ImportJobStore jobs, QuarantineView records, HttpReplies replies) {
        this.jobs = jobs;
        this.records = records;
        this.replies = replies;
    }

    public void get(@Header("id") String id, Exchange exchange) {
        UUID jobId = QueryParams.jobId(id);
        Caller caller = TenantGuard.caller(exchange);
        ImportJob job = jobs.find(jobId).filter(found -> caller.mayActFor(found.supplier()))
                .orElseThrow(() -> ApiProblemException.notFound("no job with id " + jobId));
        replies.json(exchange, 200, JobView.of(job, caller));
    }

    /**
     * GET /api/v1/jobs: newest first, by cursor ({@code after}: the {@code next} of the page before), or by page
     * number ({@code page}).
     */
    public void list(@Header("supplier") String supplier, @Header("state") String state,
            @Header("page") String page, @Header("after") String after, @Header("size") String size,
            Exchange exchange) {
        Caller caller = TenantGuard.caller(exchange);
        String scope = QueryParams.text("supplier", supplier);
        if (!caller.admin()) {
            if (scope != null && !caller.mayActFor(scope)) {
                throw ApiProblemException.notFound("no supplier '" + scope + "'");
            }
            // a supplier's key lists that supplier's jobs only
            scope = caller.supplier();
        }
        JobState byState = QueryParams.state(state);
        int pageNo = QueryParams.number("page", page, 0);
        int pageSize = QueryParams.number("size", size, DEFAULT_SIZE);
        QueryParams.page(pageNo, pageSize);
        JobPage result = jobs.list(new JobQuery(scope, byState, null, null, null, pageNo, pageSize,
                QueryParams.jobCursor(after), counted(page, after)));
        List<JobView> items = result.items().stream().map(job -> JobView.of(job, caller)).toList();
        replies.json(exchange, 200, JobList.of(items, result));
    }

    /** GET /api/v1/jobs/{id}/records?outcome=QUARANTINED: the records kept with their reasons. */
    public void records(@Header("id") String id, @Header("outcome") String outcome,
            @Header("page") String page, @Header("after") String after, @Header("size") String size,
            Exchange exchange) {
        UUID jobId = QueryParams.jobId(id);
        boolean numbered = counted(page, after);
        Long afterRecord = QueryParams.idCursor(after);
        int pageNo = QueryParams.number("page", page, 0);
        int pageSize = QueryParams.number("size", size, DEFAULT_SIZE);
        QueryParams.page(pageNo, pageSize);
        if (outcome != null && !outcome.isBlank() && !"QUARANTINED".equalsIgnoreCase(outcome.trim())) {
            throw QueryParams.invalid("outcome '" + outcome
                    + "' is not kept per record; records are kept for QUARANTINED (the counts of the job cover the others)");
        }
        Caller caller = TenantGuard.caller(exchange);
        if (jobs.find(jobId).filter(job -> caller.mayActFor(job.supplier())).isEmpty()) {
            throw ApiProblemException.notFound("no job with id " + jobId);
        }
        replies.json(exchange, 200, records.quarantined(jobId, new PageRequest(numbered, pageNo, pageSize,
                afterRecord == null ? null : PageCursor.ofId(afterRecord))));
    }

    /**
     * A page of jobs, newest first: {@code more} whether jobs follow, {@code next} the cursor to ask for them with
     * ({@code after}). {@code page} and {@code total} (every matching job, not only this page) are left out where
     * the list was asked for by cursor (the admin API: unless asked for by number).
     */
    public record JobList(List<JobView> items, @JsonInclude(JsonInclude.Include.NON_NULL) Integer page, int size,
            @JsonInclude(JsonInclude.Include.NON_NULL) Long total, boolean more, String next) {

        public static JobList of(List<JobView> items, JobPage page) {
            return new JobList(items, page.page(), page.size(), page.total(), page.more(), page.next());
        }
    }

    /**
     * Whether a page of this public API is answered with {@code page} and {@code total}: every page but one asked
     * for by cursor, so a partner that reads the total of the first page or pages by number keeps working; one that
     * walks by cursor does not pay for a count at each page.
     */
    static boolean counted(String page, String after) {
        QueryParams.byPageNumber(page, after);
        return after == null || after.isBlank();
    }

}
