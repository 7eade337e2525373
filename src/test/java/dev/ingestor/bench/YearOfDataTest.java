package dev.ingestor.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The generator SQL of {@link YearOfDataBenchmark} reads as the benchmark needs it: every step parsed, every
 * chunked step counting a known number, every placeholder filled. Runs without a database, so an edit of
 * {@code bench/year-of-data.sql} that breaks its format shows in the fast tier, not hours into a benchmark.
 */
class YearOfDataTest {

    @Test
    void everyStepOfTheResourceHasItsCountsAndValues() {
        YearOfData year = new YearOfData(0.01, Instant.parse("2026-11-26T00:00:00Z"), line -> {});
        List<YearOfData.Step> steps = year.steps();

        assertThat(steps).extracting(YearOfData.Step::kind).contains("helpers", "step", "due");
        assertThat(steps).filteredOn(s -> s.rows() != null).extracting(YearOfData.Step::rows)
                .allSatisfy(rows -> assertThat(year.counts()).containsKey(rows));
        assertThat(year.counts()).containsEntry("jobs", "50000").containsEntry("events", "200000");
        for (YearOfData.Step step : steps) {
            String sql = year.sql(step, 7, 1, 1000);
            assertThat(sql).as(step.name()).doesNotContain("${").isNotBlank();
        }
        assertThat(year.tables()).contains("import_job", "item_version", "outbox_published", "http_request");
    }

    @Test
    void aStepStartsAtItsMarkerAndLeavesCommentsOut() {
        List<YearOfData.Step> steps = YearOfData.parse("""
                -- head, not a step
                -- step: one
                SELECT 1;
                -- step: many rows=jobs
                -- a comment
                SELECT ${lo};
                -- due: old
                SELECT ${round};
                """);

        assertThat(steps).containsExactly(new YearOfData.Step("step", "one", null, "SELECT 1;"),
                new YearOfData.Step("step", "many", "jobs", "SELECT ${lo};"),
                new YearOfData.Step("due", "old", null, "SELECT ${round};"));
    }
}
