package dev.ingestor.source.http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.job.RecordCounts;
import dev.ingestor.logging.SafeText;
import dev.ingestor.metrics.IngestorMetrics;
import dev.ingestor.web.ApiProblemException;
import dev.ingestor.web.HttpReplies;
import dev.ingestor.web.HttpSettings;
import dev.ingestor.web.TenantGuard;
import org.apache.camel.Body;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Message;
import org.apache.camel.support.SynchronizationAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * POST /api/v1/suppliers/{supplier}/items (also under the older path /api/v1/partners/{partner}/items): a JSON batch of
 * delivery advice records (docs/design.md, Idempotency rules).
 *
 * <p>The steps of a batch are spelt in routes/source-http.camel.yaml (route item-batch and the two after it): this
 * class is its first and last step. {@link #read} checks the request and takes its fingerprint, before any key is
 * claimed; {@link #answer} answers a claimed request once its answer is stored. Without {@code mode=bulk} (no mode,
 * {@code mode=sync} or {@code mode=upsert}) the items are processed while the caller waits and the answer names
 * every item's outcome; with it the batch becomes a job for the stages and the answer is 202 with the job.
 */
@Component
class ItemBatchApi {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.http");
    static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    static final String CORRELATION_ID = "X-Correlation-Id";

    private final TenantGuard tenants;
    private final HttpReplies replies;
    private final IngestorMetrics metrics;
    private final ItemBatchReader batchReader;

    ItemBatchApi(TenantGuard tenants, HttpReplies replies, IngestorProperties properties, HttpSettings http,
            IngestorMetrics metrics) {
        this.tenants = tenants;
        this.replies = replies;
        this.metrics = metrics;
        this.batchReader = new ItemBatchReader(http.getMaxItemsPerBatch(), http.getMaxRecordSize().toBytes(),
                properties.getDataDir().resolve("spool"));
    }

    /**
     * What a request's fingerprint is taken under, with its canonical body. It names the path items were first
     * pushed to, whichever path this request came by: a stored request key matches its retry only while this
     * stays the same, so it never changes with the routes.
     */
    static String fingerprintName(String supplier, boolean bulk) {
        return "POST /api/v1/partners/" + supplier + "/items mode=" + (bulk ? "bulk" : "sync");
    }

    /** Everything that can be wrong with the request itself, answered before any key is taken. */
    public ItemBatchRequest read(Exchange exchange) throws IOException {
        Message message = exchange.getMessage();
        String supplier = tenants.supplierFor(exchange, "supplier");
        // application/json only: the route's consumes, enforced by Spring MVC with 415
        String key = idempotencyKey(message);
        String mode = message.getHeader("mode", String.class);
        boolean bulk;
        if (mode == null || mode.isBlank() || mode.equals("sync") || mode.equals("upsert")) {
            // upsert names what the synchronous mode does (apply each item by the version rules at once), so it
            // is that mode, fingerprint included: a retry under either name is the same request
            bulk = false;
        } else if (mode.equals("bulk")) {
            bulk = true;
        } else {
            throw ApiProblemException.badRequest("bad-query", "mode '" + SafeText.of(mode, 40)
                    + "' is not known; use mode=bulk for a job, or mode=upsert (or none) to process the batch at once");
        }
        String prefix = fingerprintName(supplier, bulk);
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
        return new ItemBatchRequest(supplier, key, bulk, batch.jsonLines(), batch.fingerprint(),
                TenantGuard.caller(exchange).submitter());
    }

    /** The answer of a claimed request to its caller, once stored: written, its records counted, logged. */
    public void answer(@Body ItemBatchRequest request, @ExchangeProperty(ItemBatchReply.PROPERTY) ItemBatchReply reply,
            Exchange exchange) {
        replies.raw(exchange, reply.status(), reply.headers(), reply.body());
        RecordCounts counts = reply.counts();
        if (counts != null) {
            metrics.records(request.supplier(), counts.accepted(), counts.updated(), counts.replayed(),
                    counts.quarantined());
        }
        LOG.info("items supplier={} key={} job={} mode={} status={}", request.supplier(), request.idempotencyKey(),
                reply.jobId(), request.bulk() ? "bulk" : "sync", reply.status());
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
}
