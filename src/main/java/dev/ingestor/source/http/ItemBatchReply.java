package dev.ingestor.source.http;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.api.JobView;
import dev.ingestor.job.RecordCounts;
import org.apache.camel.Exchange;

/**
 * The answer of a claimed item batch, as the caller gets it and as it is stored under the request's key for its
 * retries: status, headers and body; with the job it names and, for a batch applied at once, its counts (null
 * for bulk). Kept as the exchange property {@link #PROPERTY} from the step that makes it to the answer.
 */
public record ItemBatchReply(UUID jobId, int status, Map<String, String> headers, byte[] body, RecordCounts counts) {

    public static final String PROPERTY = "IngestorItemBatchReply";

    /** A JSON answer that points at its job. */
    static ItemBatchReply of(UUID jobId, int status, byte[] body, RecordCounts counts) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(Exchange.CONTENT_TYPE, "application/json");
        headers.put("Location", JobView.JOBS_PATH + jobId);
        return new ItemBatchReply(jobId, status, headers, body, counts);
    }
}
