package dev.ingestor.item;

import java.util.Map;

/** The items of one batch that changed (ACCEPTED or UPDATED), by source id; the others were REPLAY. */
public record AppliedBatch(Map<String, RecordOutcome> written) {

    public RecordOutcome outcomeOf(String sourceId) {
        return written.getOrDefault(sourceId, RecordOutcome.REPLAY);
    }

    public long accepted() {
        return written.values().stream().filter(o -> o == RecordOutcome.ACCEPTED).count();
    }

    public long updated() {
        return written.size() - accepted();
    }
}
