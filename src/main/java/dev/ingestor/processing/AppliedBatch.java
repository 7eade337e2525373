package dev.ingestor.processing;

import java.util.Map;
import java.util.Set;

/**
 * The items of one batch that changed (ACCEPTED, UPDATED or DELETED), by supplier and source id; the other items
 * sent were REPLAY, because the upsert's WHERE refused them and the statement did not return them.
 * <p>
 * "Not returned" can only mean REPLAY if the ids the database returns are exactly the ids Java sent. An id
 * the database answers with that was not sent means the text was changed on the way (an invalid string
 * stored differently), and counting the sent one as REPLAY would hide an effect: that fails loudly instead.
 */
public record AppliedBatch(Set<ItemKey> sent, Map<ItemKey, RecordOutcome> written) {

    public AppliedBatch {
        sent = Set.copyOf(sent);
        written = Map.copyOf(written);
        for (ItemKey item : written.keySet()) {
            if (!sent.contains(item)) {
                throw new IllegalStateException("the database wrote source id '"
                        + dev.ingestor.logging.SafeText.of(item.sourceId(), 128) + "' of supplier '"
                        + dev.ingestor.logging.SafeText.of(item.supplier(), 128)
                        + "', which is not an item of the batch sent: the id was changed on its way to the database");
            }
        }
    }

    public static AppliedBatch empty() {
        return new AppliedBatch(Set.of(), Map.of());
    }

    /** ACCEPTED, UPDATED or DELETED if the database returned the item; REPLAY if it was sent and not returned. */
    public RecordOutcome outcomeOf(ItemKey item) {
        RecordOutcome outcome = written.get(item);
        if (outcome != null) {
            return outcome;
        }
        if (!sent.contains(item)) {
            throw new IllegalStateException("source id '" + dev.ingestor.logging.SafeText.of(item.sourceId(), 128)
                    + "' of supplier '" + dev.ingestor.logging.SafeText.of(item.supplier(), 128)
                    + "' was not part of this batch");
        }
        return RecordOutcome.REPLAY;
    }

    /** {@link #outcomeOf(ItemKey)} of {@code supplier}'s item {@code sourceId}. */
    public RecordOutcome outcomeOf(String supplier, String sourceId) {
        return outcomeOf(new ItemKey(supplier, sourceId));
    }

    public long accepted() {
        return written.values().stream().filter(o -> o == RecordOutcome.ACCEPTED).count();
    }

    /**
     * The items changed that were there before, DELETED included: the job counts keep their published shape
     * (docs/design.md, Contracts), so a tombstone's effect is counted as an update there.
     */
    public long updated() {
        return written.size() - accepted();
    }

    /** The items sent that changed nothing (a batch holds each item once, so sent counts the batch). */
    public long replayed() {
        return sent.size() - written.size();
    }
}
