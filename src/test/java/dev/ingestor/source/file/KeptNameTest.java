package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;

import org.junit.jupiter.api.Test;

class KeptNameTest {

    private static final LocalDateTime NOW = LocalDateTime.of(2026, 11, 23, 15, 4, 5, 678_000_000);

    @Test
    void aShortNameIsKeptWholeAfterTheStamp() {
        assertThat(KeptName.stamped("advice.csv", NOW)).isEqualTo("20261123-150405-678-advice.csv");
    }

    @Test
    void everyNameUpTo255BytesFitsWithItsStamp() {
        for (String name : new String[] {"a".repeat(232) + ".csv", "x".repeat(251) + ".csv", "ü".repeat(125) + ".csv",
                "€".repeat(83) + ".json", "😀".repeat(63), "ab😀".repeat(42) + ".csv", "€".repeat(255)}) {
            String kept = KeptName.stamped(name, NOW);
            assertThat(kept.getBytes(StandardCharsets.UTF_8).length).as(name).isLessThanOrEqualTo(255);
            assertThat(kept).startsWith("20261123-150405-678-");
            // whole characters only: a cut inside one would leave invalid text
            assertThat(new String(kept.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8)).isEqualTo(kept);
            assertThat(kept).doesNotContain("\uFFFD");
        }
    }

    @Test
    void aShortenedNameKeepsItsStartAndExtension() {
        String kept = KeptName.stamped("ü".repeat(125) + ".csv", NOW);
        assertThat(kept).matches(".*~[0-9a-f]{8}\\.csv").contains("üüü");
        assertThat(kept.getBytes(StandardCharsets.UTF_8).length).isEqualTo(255);
        assertThat(KeptName.stamped("x".repeat(235), NOW)).isEqualTo("20261123-150405-678-" + "x".repeat(235));
        assertThat(KeptName.stamped("x".repeat(236), NOW)).matches("20261123-150405-678-x{226}~[0-9a-f]{8}");
    }

    /**
     * Names that differ only after the cut, answered in the same millisecond, are kept apart: Camel deletes a file in
     * the way of a move, so one kept name for both would lose the first.
     */
    @Test
    void namesThatDifferOnlyAfterTheCutAreKeptApart() {
        String start = "€".repeat(80);
        String one = KeptName.stamped(start + "-part-1.csv", NOW);
        String two = KeptName.stamped(start + "-part-2.csv", NOW);
        assertThat(one).isNotEqualTo(two);
        assertThat(one).isEqualTo(KeptName.stamped(start + "-part-1.csv", NOW)).as("the same name keeps the same");
    }
}
