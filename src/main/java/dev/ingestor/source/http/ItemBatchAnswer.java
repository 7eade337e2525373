package dev.ingestor.source.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.ingestor.api.JobView;
import dev.ingestor.job.JobState;
import dev.ingestor.job.RecordCounts;
import dev.ingestor.processing.ItemApplier;

/** The answer to a batch processed at once: the job it became and every item's outcome. */
public record ItemBatchAnswer(String jobId, String state, RecordCounts counts, List<ItemResult> items,
        Map<String, String> links) {

    /** One item of the batch, named by its position and, when it has them, its source id and version. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ItemResult(int item, @JsonProperty("source_id") String sourceId,
            @JsonProperty("source_version") Long sourceVersion, String outcome, String reason) {
    }

    static ItemBatchAnswer of(UUID jobId, JobState state, ItemApplier.Applied applied) {
        List<ItemApplier.AppliedRecord> records = applied.records();
        List<ItemResult> items = new ArrayList<>(records.size());
        for (int i = 0; i < records.size(); i++) {
            ItemApplier.AppliedRecord record = records.get(i);
            items.add(new ItemResult(i + 1, record.sourceId(), record.sourceVersion(), record.outcome().name(),
                    record.reason()));
        }
        return new ItemBatchAnswer(jobId.toString(), state.name(), applied.counts(), items, Map.of("job",
                JobView.JOBS_PATH + jobId, "records", JobView.JOBS_PATH + jobId + "/records?outcome=QUARANTINED"));
    }
}
