package dev.ingestor.source.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.swagger.v3.oas.annotations.media.Schema;
import dev.ingestor.job.JobState;
import dev.ingestor.job.RecordCounts;
import dev.ingestor.logging.SafeText;
import dev.ingestor.processing.ItemApplier;
import dev.ingestor.validation.DeliveryAdvice;
import dev.ingestor.validation.Validated;
import dev.ingestor.api.JobView;

/** The answer to a batch processed at once: the job it became and every item's outcome. */
@Schema(name = "ItemBatchAnswer", description = "The job the batch became and every item's outcome")
public record ItemBatchAnswer(@Schema(format = "uuid", example = "7d0c1a52-3f4e-4b8a-9a51-0f6f2d1c9e11") String jobId,
                              @Schema(example = "COMPLETED_WITH_ERRORS") String state, RecordCounts counts, List<ItemResult> items,
                              Map<String, String> links) {

    /** One item of the batch, named by its position and, when it has them, its source id and version. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(name = "ItemOutcome")
    public record ItemResult(@Schema(description = "Position in the batch, from 1", example = "1") int item,
                             @JsonProperty("source_id") String sourceId,
                             @JsonProperty("source_version") Long sourceVersion,
                             @Schema(allowableValues = {"ACCEPTED", "UPDATED", "REPLAY", "QUARANTINED", "DELETED"},
                                     example = "QUARANTINED") String outcome,
                             @Schema(description = "Why, when QUARANTINED",
                                     example = "quantity: '-3' is not a whole number greater than 0") String reason) {
    }

    static ItemBatchAnswer of(UUID jobId, JobState state, ItemApplier.Applied applied) {
        List<ItemApplier.AppliedRecord> records = applied.records();
        List<ItemResult> items = new ArrayList<>(records.size());
        for (int i = 0; i < records.size(); i++) {
            Validated record = records.get(i).record();
            String outcome = records.get(i).outcome().name();
            DeliveryAdvice advice = record.advice();
            items.add(advice != null
                    ? new ItemResult(i + 1, advice.sourceId(), advice.sourceVersion(), outcome, null)
                    : new ItemResult(i + 1, SafeText.of(record.raw().fields().get("source_id"), 128), null,
                            outcome, record.reason()));
        }
        return new ItemBatchAnswer(jobId.toString(), state.name(), applied.counts(), items, Map.of("job",
                JobView.JOBS_PATH + jobId, "records", JobView.JOBS_PATH + jobId + "/records?outcome=QUARANTINED"));
    }
}
