package dev.ingestor.source;

import dev.ingestor.web.ApiProblemException;
import dev.ingestor.web.TenantGuard;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.ingestor.web.HttpReplies;
import dev.ingestor.web.JobView;
import dev.ingestor.config.IngestorProperties;
import dev.ingestor.intake.StoredContent;
import dev.ingestor.intake.ContentKeyLock;
import dev.ingestor.intake.RawStore;
import dev.ingestor.intake.ReceivedContent;
import dev.ingestor.processing.AppliedBatch;
import dev.ingestor.processing.ItemStore;
import dev.ingestor.processing.RecordOutcome;
import dev.ingestor.job.ImportJob;
import dev.ingestor.job.ImportJobStore;
import dev.ingestor.job.JobState;
import dev.ingestor.job.RecordCounts;
import dev.ingestor.metrics.IngestorMetrics;
import dev.ingestor.validation.DeliveryAdvice;
import dev.ingestor.validation.DeliveryAdviceValidator;
import dev.ingestor.validation.QuarantineWriter;
import dev.ingestor.validation.RawRecord;
import dev.ingestor.validation.Validated;
import org.apache.camel.Body;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Message;
import org.apache.camel.support.SynchronizationAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * POST /api/v1/partners/{partner}/items: a JSON batch of delivery advice records (docs/design.md, Idempotency rules).
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
    private final ItemBatchReader batchReader;
    private final ContentKeyLock contentKeyLock;

    public ItemBatchApi(TenantGuard tenants, RawStore rawStore, ItemStore items, ImportJobStore jobs,
                        QuarantineWriter quarantine, RequestKeyStore requestKeys, HttpReplies replies,
                        PlatformTransactionManager transactionManager, IngestorProperties properties,
                        IngestorMetrics metrics, ContentKeyLock contentKeyLock) {
        this.metrics = metrics;
        this.contentKeyLock = contentKeyLock;
        this.tenants = tenants;
        this.rawStore = rawStore;
        this.items = items;
        this.jobs = jobs;
        this.quarantine = quarantine;
        this.requestKeys = requestKeys;
        this.replies = replies;
        this.transactions = new TransactionTemplate(transactionManager);
        this.properties = properties;
        IngestorProperties.Http http = properties.getHttp();
        this.batchReader = new ItemBatchReader(http.getMaxItemsPerBatch(), http.getMaxRecordSize().toBytes(),
                properties.getDataDir().resolve("spool"));
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
            throw ApiProblemException.badRequest("bad-query", "mode '" + dev.ingestor.logging.SafeText.of(mode, 40)
                    + "' is not known; use mode=bulk for a job, or leave it out to process the batch at once");
        }
        String prefix = "POST /api/v1/partners/" + partner + "/items mode=" + (bulk ? "bulk" : "sync");
        ItemBatchReader.Batch batch = batchReader.read(message.getBody(InputStream.class), prefix);
        // the items file goes once the exchange is done, whatever the outcome (a replay or 409 included)
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onDone(Exchange done) {
                try {
                    Files.deleteIfExists(batch.jsonLines());
                } catch (IOException e) {
                    LOG.warn("cannot delete the items file {}: {}", batch.jsonLines(), e.getMessage());
                }
            }
        });
        return new ItemBatchRequest(partner, key, bulk, batch.jsonLines(), batch.count(), batch.fingerprint());
    }

    /** Does the work of a claimed request and answers it; the answer is stored for the request's retries. */
    public void process(@Body ItemBatchRequest request, @ExchangeProperty(RequestClaim.PROPERTY) RequestClaim claim,
                        Exchange exchange) throws Exception {
        try (AutoCloseable lease = requestKeys.keepAlive(claim)) {
            ReceivedContent received;
            try (InputStream lines = Files.newInputStream(request.items())) {
                received = rawStore.receive(lines, request.partner(), null, null);
            }
            UUID jobId = ImportJobStore.newId();
            String fileName = "items " + request.idempotencyKey();
            Reply reply;
            try {
                reply = transactions.execute(status -> {
                    // as for files: the bytes go in place under their key's lock, in the transaction that creates
                    // the job referring to them, so retention cannot delete a raw file a new job is about to use
                    contentKeyLock.lock(received.key().toString());
                    StoredContent content = place(received);
                    return request.bulk()
                            ? bulk(request, claim, content, jobId, fileName)
                            : processNow(request, claim, content, jobId, fileName);
                });
            } finally {
                rawStore.discard(received);
            }
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

    private StoredContent place(ReceivedContent received) {
        try {
            return rawStore.place(received);
        } catch (IOException e) {
            throw new UncheckedIOException("the items of the request cannot be put in the raw store", e);
        }
    }

    private Reply bulk(ItemBatchRequest request, RequestClaim claim, StoredContent content, UUID jobId, String fileName) {
        ImportJob job = jobs.createForRequest(jobId, content, fileName, request.idempotencyKey(), JobState.RECEIVED, RecordCounts.NONE);
        return store(claim, 202, replies.toJson(JobView.of(job)), jobId, null);
    }

    private Reply processNow(ItemBatchRequest request, RequestClaim claim, StoredContent content, UUID jobId, String fileName) {
        try (BufferedReader lines = Files.newBufferedReader(request.items(), StandardCharsets.UTF_8)) {
            return processNow(request, claim, content, jobId, fileName, lines);
        } catch (IOException e) {
            throw new UncheckedIOException("the items file of the request cannot be read", e);
        }
    }

    private Reply processNow(ItemBatchRequest request, RequestClaim claim, StoredContent content, UUID jobId, String fileName,
                             BufferedReader lines) throws IOException {
        String topic = properties.getKafka().getItemsTopic();
        int n = request.itemCount();
        List<ItemResult> results = new ArrayList<>(n);
        List<Object[]> quarantined = new ArrayList<>();
        List<DeliveryAdvice> batch = new ArrayList<>();
        List<Integer> batchPositions = new ArrayList<>();
        Set<String> batchIds = new HashSet<>();
        RecordOutcome[] outcomes = new RecordOutcome[n];
        Validated[] validated = new Validated[n];
        for (int i = 0; i < n; i++) {
            Validated record = DeliveryAdviceValidator.validate(RawRecord.ofJson(CanonicalJson.parse(
                    lines.readLine().getBytes(StandardCharsets.UTF_8)), i + 1, -1));
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
                    : new ItemResult(i + 1, dev.ingestor.logging.SafeText.of(record.raw().fields().get("source_id"), 128),
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
