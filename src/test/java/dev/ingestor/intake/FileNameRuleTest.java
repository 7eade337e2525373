package dev.ingestor.intake;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FileNameRuleTest {

    @Test
    void ordinaryNamesPass() {
        assertThat(FileNameRule.problem("advice 2026-12 (final).csv")).isEmpty();
        assertThat(FileNameRule.problem("Lieferavis_Müller_ÄÖÜ.json")).isEmpty();
    }

    @Test
    void oddNamesAreRefusedWithAReasonNamingThePlace() {
        assertThat(FileNameRule.problem("bad\nname.csv"))
                .hasValueSatisfying(r -> assertThat(r).contains("U+000A").contains("position 4"));
        assertThat(FileNameRule.problem("a:b.csv")).hasValueSatisfying(r -> assertThat(r).contains("':'"));
        assertThat(FileNameRule.problem("x".repeat(300))).hasValueSatisfying(r -> assertThat(r).contains("300"));
        assertThat(FileNameRule.problem(".hidden")).hasValueSatisfying(r -> assertThat(r).contains("'.'"));
        assertThat(FileNameRule.problem("bad\uFFFDbytes")).hasValueSatisfying(r -> assertThat(r).contains("encoding"));
        assertThat(FileNameRule.problem("  ")).hasValue("the file name is empty");
    }

    @Test
    void theLengthIsCountedInBytes() {
        assertThat(FileNameRule.problem("x".repeat(251) + ".csv")).isEmpty();
        // 128 characters, 256 bytes: more than a file system takes
        assertThat(FileNameRule.problem("ü".repeat(124) + ".csv")).isEmpty();
        assertThat(FileNameRule.problem("ü".repeat(128))).hasValueSatisfying(r -> assertThat(r).contains("256 bytes"));
        assertThat(FileNameRule.problem("€".repeat(100))).hasValueSatisfying(r -> assertThat(r).contains("300 bytes"));
    }

    @Test
    void printableNeverLetsAControlCharacterIntoALogLine() {
        assertThat(FileNameRule.printable("a\nINFO forged line")).isEqualTo("\"a\\u000AINFO forged line\"");
        assertThat(FileNameRule.printable(null)).isEqualTo("<none>");
    }
}
