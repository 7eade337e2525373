package dev.ingestor.source.http;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.UUID;

import dev.ingestor.intake.ContentKeyLock;
import dev.ingestor.intake.RawStore;
import dev.ingestor.intake.ReceivedContent;
import dev.ingestor.intake.StoredContent;
import dev.ingestor.job.ImportJob;
import dev.ingestor.job.ImportJobStore;
import dev.ingestor.job.JobState;
import dev.ingestor.job.RecordCounts;
import dev.ingestor.processing.ItemApplier;
import dev.ingestor.validation.RawRecord;
import dev.ingestor.web.HttpReplies;
import dev.ingestor.api.JobView;
import org.apache.camel.Exchange;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The work of a claimed item batch, in one transaction: its items go into the raw store as the job's content,
 * then either (bulk) the job is made for the stages, or (sync) the items are applied at once through the
 * {@link ItemApplier} and the job is recorded finished; the answer is stored under the request's key in the
 * same transaction ({@link RequestKeyStore#complete}), so the effects, their events, the job and the stored
 * answer commit together or not at all.
 */
@Component
class ItemBatchTransaction {

    /** The answer of a request as stored for its retries, and the counts of a batch applied at once. */
    record Reply(UUID jobId, int status, Map<String, String> headers, byte[] body, RecordCounts counts) {
    }

    private final RawStore rawStore;
    private final ContentKeyLock contentKeyLock;
    private final ImportJobStore jobs;
    private final ItemApplier applier;
    private final RequestKeyStore requestKeys;
    private final HttpReplies replies;
    private final TransactionTemplate transactions;

    ItemBatchTransaction(RawStore rawStore, ContentKeyLock contentKeyLock, ImportJobStore jobs, ItemApplier applier,
                         RequestKeyStore requestKeys, HttpReplies replies, PlatformTransactionManager transactionManager) {
        this.rawStore = rawStore;
        this.contentKeyLock = contentKeyLock;
        this.jobs = jobs;
        this.applier = applier;
        this.requestKeys = requestKeys;
        this.replies = replies;
        this.transactions = new TransactionTemplate(transactionManager);
    }

    Reply run(ItemBatchRequest request, RequestClaim claim) throws IOException {
        ReceivedContent received;
        try (InputStream lines = Files.newInputStream(request.items())) {
            received = rawStore.receive(lines, request.supplier(), null, null);
        }
        UUID jobId = ImportJobStore.newId();
        String fileName = "items " + request.idempotencyKey();
        try {
            return transactions.execute(status -> {
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
    }

    private StoredContent place(ReceivedContent received) {
        try {
            return rawStore.place(received);
        } catch (IOException e) {
            throw new UncheckedIOException("the items of the request cannot be put in the raw store", e);
        }
    }

    private Reply bulk(ItemBatchRequest request, RequestClaim claim, StoredContent content, UUID jobId, String fileName) {
        ImportJob job = jobs.createForRequest(jobId, content.key(), content.size(), fileName, request.idempotencyKey(), request.submittedBy(),
                JobState.RECEIVED, RecordCounts.NONE);
        return store(claim, 202, replies.toJson(JobView.forSupplier(job)), jobId, null);
    }

    private Reply processNow(ItemBatchRequest request, RequestClaim claim, StoredContent content, UUID jobId, String fileName) {
        try (BufferedReader lines = Files.newBufferedReader(request.items())) {
            ItemApplier.Applied applied = applier.applyBatch(request.supplier(), jobId, records(lines, request.itemCount()),
                    counts -> jobs.createForRequest(jobId, content.key(), content.size(), fileName, request.idempotencyKey(),
                            request.submittedBy(), finished(counts), counts));
            byte[] body = replies.toJson(ItemBatchAnswer.of(jobId, finished(applied.counts()), applied));
            return store(claim, 200, body, jobId, applied.counts());
        } catch (IOException e) {
            throw new UncheckedIOException("the items file of the request cannot be read", e);
        }
    }

    private static JobState finished(RecordCounts counts) {
        return counts.quarantined() == 0 ? JobState.COMPLETED : JobState.COMPLETED_WITH_ERRORS;
    }

    /** The items file's lines (canonical JSON, one item each) as records named by their position. */
    private static Iterator<RawRecord> records(BufferedReader lines, int count) {
        return new Iterator<>() {
            private int read;

            @Override
            public boolean hasNext() {
                return read < count;
            }

            @Override
            public RawRecord next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                try {
                    read++;
                    return RawRecord.ofJson(CanonicalJson.parse(lines.readLine().getBytes(StandardCharsets.UTF_8)), read, -1);
                } catch (IOException e) {
                    throw new UncheckedIOException("the items file of the request cannot be read", e);
                }
            }
        };
    }

    private Reply store(RequestClaim claim, int status, byte[] body, UUID jobId, RecordCounts counts) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(Exchange.CONTENT_TYPE, "application/json");
        headers.put("Location", JobView.JOBS_PATH + jobId);
        requestKeys.complete(claim, status, headers, body, jobId);
        return new Reply(jobId, status, headers, body, counts);
    }
}
