package dev.ingestor.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

class AppliedBatchTest {

    @Test
    void anIdSentAndNotReturnedIsAReplay() {
        AppliedBatch applied = new AppliedBatch(Set.of("a", "b", "c"),
                Map.of("a", RecordOutcome.ACCEPTED, "b", RecordOutcome.UPDATED));
        assertThat(applied.outcomeOf("a")).isEqualTo(RecordOutcome.ACCEPTED);
        assertThat(applied.outcomeOf("b")).isEqualTo(RecordOutcome.UPDATED);
        assertThat(applied.outcomeOf("c")).isEqualTo(RecordOutcome.REPLAY);
        assertThat(applied.accepted()).isEqualTo(1);
        assertThat(applied.updated()).isEqualTo(1);
    }

    @Test
    void anIdTheDatabaseChangedOnTheWayFailsLoudly() {
        // "n8\uD800" is stored and returned as "n8?": counting the sent id as REPLAY would hide a written item
        assertThatThrownBy(() -> new AppliedBatch(Set.of("n8\uD800"), Map.of("n8?", RecordOutcome.ACCEPTED)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("n8?");
    }

    @Test
    void askingForAnIdThatWasNotSentFailsLoudly() {
        AppliedBatch applied = new AppliedBatch(Set.of("a"), Map.of());
        assertThatThrownBy(() -> applied.outcomeOf("z")).isInstanceOf(IllegalStateException.class);
    }
}
