package dev.ingestor.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

class AppliedBatchTest {

    @Test
    void anIdSentAndNotReturnedIsAReplay() {
        AppliedBatch applied = new AppliedBatch(Set.of(item("a"), item("b"), item("c"), new ItemKey("GLOBEX", "a")),
                Map.of(item("a"), RecordOutcome.ACCEPTED, item("b"), RecordOutcome.UPDATED));
        assertThat(applied.outcomeOf("ACME", "a")).isEqualTo(RecordOutcome.ACCEPTED);
        assertThat(applied.outcomeOf("ACME", "b")).isEqualTo(RecordOutcome.UPDATED);
        assertThat(applied.outcomeOf("ACME", "c")).isEqualTo(RecordOutcome.REPLAY);
        // the same source id of another supplier is another item
        assertThat(applied.outcomeOf("GLOBEX", "a")).isEqualTo(RecordOutcome.REPLAY);
        assertThat(applied.accepted()).isEqualTo(1);
        assertThat(applied.updated()).isEqualTo(1);
    }

    @Test
    void anIdTheDatabaseChangedOnTheWayFailsLoudly() {
        // "n8\uD800" is stored and returned as "n8?": counting the sent id as REPLAY would hide a written item
        assertThatThrownBy(() -> new AppliedBatch(Set.of(item("n8\uD800")),
                Map.of(item("n8?"), RecordOutcome.ACCEPTED)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("n8?");
    }

    @Test
    void askingForAnIdThatWasNotSentFailsLoudly() {
        AppliedBatch applied = new AppliedBatch(Set.of(item("a")), Map.of());
        assertThatThrownBy(() -> applied.outcomeOf("ACME", "z")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> applied.outcomeOf("GLOBEX", "a")).isInstanceOf(IllegalStateException.class);
    }

    private static ItemKey item(String sourceId) {
        return new ItemKey("ACME", sourceId);
    }
}
