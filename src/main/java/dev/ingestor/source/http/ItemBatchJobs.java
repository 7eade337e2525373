package dev.ingestor.source.http;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.UUID;

import dev.ingestor.api.JobView;
import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.intake.ReceivedContent;
import dev.ingestor.job.ImportJob;
import dev.ingestor.job.ImportJobStore;
import dev.ingestor.job.JobState;
import dev.ingestor.job.RecordCounts;
import dev.ingestor.processing.ItemApplier;
import dev.ingestor.validation.ItemLines;
import dev.ingestor.web.HttpReplies;
import org.apache.camel.Body;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.springframework.stereotype.Component;

/**
 * The job of a claimed item batch, made inside the batch's transaction (route item-batch-transaction) once its
 * items are in the raw store: for the stages ({@link #createForStages}, bulk), or finished with every item applied
 * at once ({@link #applyItems}). Either sets the answer, {@link ItemBatchReply#PROPERTY}, that the route then stores
 * under the request's key in the same transaction.
 */
@Component("itemBatchJobs")
class ItemBatchJobs {

    private final ImportJobStore jobs;
    private final ItemApplier applier;
    private final HttpReplies replies;

    ItemBatchJobs(ImportJobStore jobs, ItemApplier applier, HttpReplies replies) {
        this.jobs = jobs;
        this.applier = applier;
        this.replies = replies;
    }

    /** Bulk: the job RECEIVED, for the validation and processing stages; answered 202 with the job. */
    public void createForStages(@Body ItemBatchRequest request,
            @ExchangeProperty(IntakeHeaders.RECEIVED) ReceivedContent content,
            Exchange exchange) {
        UUID jobId = ImportJobStore.newId();
        ImportJob job = jobs.createForRequest(jobId, content.key(), content.size(), fileName(request),
                request.idempotencyKey(),
                request.submittedBy(), JobState.RECEIVED, RecordCounts.NONE);
        exchange.setProperty(ItemBatchReply.PROPERTY,
                ItemBatchReply.of(jobId, 202, replies.toJson(JobView.forSupplier(job)), null));
    }

    /**
     * Process now: every item applied by the version rules ({@link ItemApplier}), the job recorded finished with
     * the counts and the invalid items quarantined under it; answered 200 with every item's outcome.
     */
    public void applyItems(@Body ItemBatchRequest request,
            @ExchangeProperty(IntakeHeaders.RECEIVED) ReceivedContent content,
            Exchange exchange) {
        UUID jobId = ImportJobStore.newId();
        ItemApplier.Applied applied = applier.applyBatch(request.supplier(), jobId, () -> items(request),
                counts -> jobs.createForRequest(jobId, content.key(), content.size(), fileName(request),
                        request.idempotencyKey(), request.submittedBy(), finished(counts), counts));
        byte[] body = replies.toJson(ItemBatchAnswer.of(jobId, finished(applied.counts()), applied));
        exchange.setProperty(ItemBatchReply.PROPERTY, ItemBatchReply.of(jobId, 200, body, applied.counts()));
    }

    /** The batch's items, read from its file of canonical JSON lines. */
    private static ItemLines items(ItemBatchRequest request) {
        try {
            return ItemLines.of(Files.newBufferedReader(request.items()));
        } catch (IOException e) {
            throw new UncheckedIOException("the items file of the request cannot be read", e);
        }
    }

    /** The job's file name: an item batch has none, its request key names it. */
    private static String fileName(ItemBatchRequest request) {
        return "items " + request.idempotencyKey();
    }

    private static JobState finished(RecordCounts counts) {
        return counts.quarantined() == 0 ? JobState.COMPLETED : JobState.COMPLETED_WITH_ERRORS;
    }

}
