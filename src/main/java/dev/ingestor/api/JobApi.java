package dev.ingestor.api;

import java.util.List;
import java.util.UUID;

import dev.ingestor.job.ImportJob;
import dev.ingestor.job.ImportJobStore;
import dev.ingestor.job.JobPage;
import dev.ingestor.job.JobQuery;
import dev.ingestor.job.JobState;
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

    public void list(@Header("supplier") String supplier, @Header("state") String state,
            @Header("page") String page, @Header("size") String size, Exchange exchange) {
        Caller caller = TenantGuard.caller(exchange);
        String scope = blankToNull(supplier);
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
        JobPage result = jobs.list(new JobQuery(scope, byState, pageNo, pageSize));
        List<JobView> items = result.items().stream().map(job -> JobView.of(job, caller)).toList();
        replies.json(exchange, 200, new JobList(items, result.page(), result.size(), result.total()));
    }

    /** GET /api/v1/jobs/{id}/records?outcome=QUARANTINED: the records kept with their reasons. */
    public void records(@Header("id") String id, @Header("outcome") String outcome,
            @Header("page") String page, @Header("size") String size, Exchange exchange) {
        UUID jobId = QueryParams.jobId(id);
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
        replies.json(exchange, 200, records.quarantined(jobId, pageNo, pageSize));
    }

    /** A page of jobs, newest first; {@code total} counts every matching job, not only this page. */
    public record JobList(List<JobView> items, int page, int size, long total) {
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }
}
