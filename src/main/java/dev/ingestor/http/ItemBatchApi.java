package dev.ingestor.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.ingestor.api.HttpReplies;
import dev.ingestor.api.JobView;
import dev.ingestor.config.IngestorProperties;
import dev.ingestor.intake.StoredContent;
import dev.ingestor.intake.RawStore;
import dev.ingestor.item.AppliedBatch;
import dev.ingestor.item.ItemStore;
import dev.ingestor.item.RecordOutcome;
import dev.ingestor.job.ImportJob;
import dev.ingestor.job.ImportJobStore;
import dev.ingestor.job.JobState;
import dev.ingestor.job.RecordCounts;
import dev.ingestor.ops.IngestorMetrics;
import dev.ingestor.record.DeliveryAdvice;
import dev.ingestor.record.DeliveryAdviceValidator;
import dev.ingestor.record.QuarantineWriter;
import dev.ingestor.record.RawRecord;
import dev.ingestor.record.Validated;
import org.apache.camel.Body;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * POST /api/v1/partners/{partner}/items: a JSON batch of delivery advice records (seed 002).
 *
 * <p>{@link #read} checks the request and takes its fingerprint; {@link RequestKeyStore#claim} decides whether
 * this request does the work; {@link #process} does it. Without {@code mode=bulk} the items are processed
 * while the caller waits and the answer names every item's outcome; with it the batch becomes a job for the
 * stages and the answer is 202 with the job. Either way the effects, the job and the stored response commit
 * in one transaction, and any failure lets the key go so the retry runs again.
 */
@Component
public class ItemBatchApi {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.http");
    static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    static final String CORRELATION_ID = "X-Correlation-Id";

    private final TenantGuard tenants;
    private final RawStore rawStore;
    private final ItemStore items;
    private final ImportJobStore jobs;
    private final QuarantineWriter quarantine;
    private final RequestKeyStore requestKeys;
    private final HttpReplies replies;
    private final TransactionTemplate transactions;
    private final IngestorProperties properties;
    private final IngestorMetrics metrics;

    public ItemBatchApi(TenantGuard tenants, RawStore rawStore, ItemStore items, ImportJobStore jobs,
                        QuarantineWriter quarantine, RequestKeyStore requestKeys, HttpReplies replies,
                        PlatformTransactionManager transactionManager, IngestorProperties properties,
                        IngestorMetrics metrics) {
        this.metrics = metrics;
        this.tenants = tenants;
        this.rawStore = rawStore;
        this.items = items;
        this.jobs = jobs;
        this.quarantine = quarantine;
        this.requestKeys = requestKeys;
        this.replies = replies;
        this.transactions = new TransactionTemplate(transactionManager);
        this.properties = properties;
    }

    /** Everything that can be wrong with the request itself, answered before any key is taken. */
    public ItemBatchRequest read(Exchange exchange) throws IOException {
        Message message = exchange.getMessage();
        String partner = tenants.supplierFor(exchange, "partner");
        // application/json only: the route's consumes, enforced by Spring MVC with 415
        String key = idempotencyKey(message);
        String mode = message.getHeader("mode", String.class);
        boolean bulk;
        if (mode == null || mode.isBlank() || mode.equals("sync")) {
            bulk = false;
        } else if (mode.equals("bulk")) {
            bulk = true;
        } else {
            throw ApiProblemException.badRequest("bad-query", "mode '" + dev.ingestor.record.SafeText.of(mode, 40)
                    + "' is not known; use mode=bulk for a job, or leave it out to process the batch at once");
        }
        byte[] body = readBody(message.getBody(InputStream.class), properties.getHttp().getMaxJsonSize().toBytes());
        JsonNode root = CanonicalJson.parse(body);
        JsonNode list = root.isObject() ? root.get("items") : null;
        if (list == null || !list.isArray()) {
            throw ApiProblemException.badRequest("bad-batch", "the body must be a JSON object with an array \"items\":"
                    + " {\"items\": [{\"source_id\": ..., \"sku\": ..., \"quantity\": ..., \"delivery_date\": ...}]}");
        }
        if (list.isEmpty()) {
            throw ApiProblemException.badRequest("bad-batch", "\"items\" is empty; send at least one record");
        }
        String fingerprint = CanonicalJson.fingerprint("POST /api/v1/partners/" + partner + "/items mode=" + (bulk ? "bulk" : "sync"), root);
        return new ItemBatchRequest(partner, key, bulk, (ArrayNode) list, fingerprint);
    }

    /** Does the work of a claimed request and answers it; the answer is stored for the request's retries. */
    public void process(@Body ItemBatchRequest request, @ExchangeProperty(RequestClaim.PROPERTY) RequestClaim claim,
                        Exchange exchange) throws Exception {
        try (AutoCloseable lease = requestKeys.keepAlive(claim)) {
            StoredContent content = rawStore.storeContent(request.partner(), jsonLines(request.items()));
            UUID jobId = ImportJobStore.newId();
            String fileName = "items " + request.idempotencyKey();
            Reply reply = transactions.execute(status -> request.bulk()
                    ? bulk(request, claim, content, jobId, fileName)
                    : processNow(request, claim, content, jobId, fileName));
            replies.raw(exchange, reply.status(), reply.headers(), reply.body());
            RecordCounts counts = reply.counts();
            if (counts != null) {
                metrics.records(request.partner(), counts.accepted(), counts.updated(), counts.replayed(), counts.quarantined());
            }
            LOG.info("items partner={} key={} job={} mode={} status={}", request.partner(), request.idempotencyKey(),
                    jobId, request.bulk() ? "bulk" : "sync", reply.status());
        } catch (Exception e) {
            requestKeys.release(claim);
            throw e;
        }
    }

    private Reply bulk(ItemBatchRequest request, RequestClaim claim, StoredContent content, UUID jobId, String fileName) {
        ImportJob job = jobs.createForRequest(jobId, content, fileName, request.idempotencyKey(), JobState.RECEIVED, RecordCounts.NONE);
        return store(claim, 202, replies.toJson(JobView.of(job)), jobId, null);
    }

    private Reply processNow(ItemBatchRequest request, RequestClaim claim, StoredContent content, UUID jobId, String fileName) {
        String topic = properties.getKafka().getItemsTopic();
        int n = request.items().size();
        List<ItemResult> results = new ArrayList<>(n);
        List<Object[]> quarantined = new ArrayList<>();
        List<DeliveryAdvice> batch = new ArrayList<>();
        List<Integer> batchPositions = new ArrayList<>();
        Set<String> batchIds = new HashSet<>();
        RecordOutcome[] outcomes = new RecordOutcome[n];
        Validated[] validated = new Validated[n];
        for (int i = 0; i < n; i++) {
            Validated record = DeliveryAdviceValidator.validate(RawRecord.ofJson(request.items().get(i), i + 1, -1));
            validated[i] = record;
            if (!record.isValid()) {
                outcomes[i] = RecordOutcome.QUARANTINED;
                quarantined.add(QuarantineWriter.row(jobId, record));
                continue;
            }
            if (!batchIds.add(record.advice().sourceId())) {
                // one statement may touch an item once: a second sighting goes in the next statement
                apply(request.partner(), jobId, topic, batch, batchPositions, outcomes);
                batchIds.clear();
                batchIds.add(record.advice().sourceId());
            }
            batch.add(record.advice());
            batchPositions.add(i);
        }
        apply(request.partner(), jobId, topic, batch, batchPositions, outcomes);
        long accepted = 0;
        long updated = 0;
        long replayed = 0;
        for (int i = 0; i < n; i++) {
            Validated record = validated[i];
            switch (outcomes[i]) {
                case ACCEPTED -> accepted++;
                case UPDATED -> updated++;
                case REPLAY -> replayed++;
                default -> { }
            }
            DeliveryAdvice advice = record.advice();
            results.add(advice != null
                    ? new ItemResult(i + 1, advice.sourceId(), advice.sourceVersion(), outcomes[i].name(), null)
                    : new ItemResult(i + 1, dev.ingestor.record.SafeText.of(record.raw().fields().get("source_id"), 128),
                            null, outcomes[i].name(), record.reason()));
        }
        RecordCounts counts = new RecordCounts(n, accepted, updated, replayed, quarantined.size());
        JobState end = quarantined.isEmpty() ? JobState.COMPLETED : JobState.COMPLETED_WITH_ERRORS;
        jobs.createForRequest(jobId, content, fileName, request.idempotencyKey(), end, counts);
        quarantine.insert(quarantined);
        byte[] body = replies.toJson(new BatchResult(jobId.toString(), end.name(), counts, results,
                Map.of("job", JobView.JOBS_PATH + jobId, "records", JobView.JOBS_PATH + jobId + "/records?outcome=QUARANTINED")));
        return store(claim, 200, body, jobId, counts);
    }

    private void apply(String partner, UUID jobId, String topic, List<DeliveryAdvice> batch, List<Integer> positions,
                       RecordOutcome[] outcomes) {
        AppliedBatch applied = items.apply(partner, jobId, topic, batch);
        for (int k = 0; k < batch.size(); k++) {
            outcomes[positions.get(k)] = applied.outcomeOf(batch.get(k).sourceId());
        }
        batch.clear();
        positions.clear();
    }

    private Reply store(RequestClaim claim, int status, byte[] body, UUID jobId, RecordCounts counts) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(Exchange.CONTENT_TYPE, "application/json");
        headers.put("Location", JobView.JOBS_PATH + jobId);
        requestKeys.complete(claim, status, headers, body, jobId);
        return new Reply(status, headers, body, counts);
    }

    private static String idempotencyKey(Message message) {
        String key = message.getHeader(IDEMPOTENCY_KEY, String.class);
        if (key == null || key.isBlank()) {
            key = message.getHeader(CORRELATION_ID, String.class);
        }
        if (key == null || key.isBlank()) {
            throw ApiProblemException.badRequest("missing-idempotency-key", "an item batch needs an Idempotency-Key"
                    + " (or X-Correlation-Id) header: a fresh UUID per logical request, the same one on every retry of it");
        }
        key = key.trim();
        if (key.length() > 255 || !key.chars().allMatch(c -> c >= 0x21 && c <= 0x7e)) {
            throw ApiProblemException.badRequest("bad-idempotency-key", "the Idempotency-Key must be 1 to 255 visible"
                    + " ASCII characters, such as a UUID");
        }
        return key;
    }

    static byte[] readBody(InputStream in, long max) throws IOException {
        if (in == null) {
            throw ApiProblemException.badRequest("malformed-json", "the request has no body; expected a JSON object");
        }
        try (in) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
            byte[] buffer = new byte[8192];
            long total = 0;
            int read;
            while ((read = in.read(buffer)) != -1) {
                total += read;
                if (total > max) {
                    throw ApiProblemException.tooLarge("the body is larger than the limit of " + max
                            + " bytes (ingestor.http.max-json-size); send the records in several batches, or as a file");
                }
                out.write(buffer, 0, read);
            }
            return out.toByteArray();
        }
    }

    /** The items as JSON Lines, one canonical object per line: line N of the stored file is item N. */
    private static byte[] jsonLines(ArrayNode items) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(items.size() * 128);
        for (JsonNode item : items) {
            out.writeBytes(CanonicalJson.canonical(item));
            out.write('\n');
        }
        return out.toByteArray();
    }

    private record Reply(int status, Map<String, String> headers, byte[] body, RecordCounts counts) {
    }

    /** The answer to a batch processed at once: the job it became and every item's outcome. */
    public record BatchResult(String jobId, String state, RecordCounts counts, List<ItemResult> items,
                              Map<String, String> links) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ItemResult(int item,
                             @JsonProperty("source_id") String sourceId,
                             @JsonProperty("source_version") Long sourceVersion,
                             String outcome,
                             String reason) {
    }
}
