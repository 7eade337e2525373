package dev.ingestor.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.UUID;

import org.junit.jupiter.api.Test;

/**
 * The windows a page by cursor asks, newest first: the newest job's month, then the older months down to the oldest
 * job's, each whole months (so PostgreSQL leaves out the others and the default partition), cut to the query's own.
 */
class JobSearchWindowsTest {

    private static final JobSearch.Held HELD = new JobSearch.Held(at("2025-11-26T00:00:00Z"),
            at("2026-04-14T10:00:00Z"), 0);

    @Test
    void theNewestMonthThenTheOlderOnesDownToTheOldestJobs() {
        assertThat(JobSearch.windows(query(null, null, null), HELD)).containsExactly(
                window("2026-04-01T00:00:00Z", "2026-05-01T00:00:00Z"),
                window("2025-11-01T00:00:00Z", "2026-04-01T00:00:00Z"));
    }

    @Test
    void aCursorStartsFromItsMonth() {
        PageCursor after = new PageCursor(at("2026-02-10T00:00:00Z"), UUID.randomUUID().toString());
        assertThat(JobSearch.windows(query(null, null, after), HELD)).containsExactly(
                window("2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"),
                window("2025-11-01T00:00:00Z", "2026-02-01T00:00:00Z"));
        // a cursor on a month's first instant: that month, the ones before
        PageCursor onBound = new PageCursor(at("2026-02-01T00:00:00Z"), UUID.randomUUID().toString());
        assertThat(JobSearch.windows(query(null, null, onBound), HELD)).first()
                .isEqualTo(window("2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"));
    }

    @Test
    void theQuerysOwnWindowCutsThem() {
        assertThat(JobSearch.windows(query(at("2026-04-05T00:00:00Z"), null, null), HELD))
                .containsExactly(window("2026-04-05T00:00:00Z", "2026-05-01T00:00:00Z"));
        assertThat(JobSearch.windows(query(at("2026-01-15T00:00:00Z"), null, null), HELD)).containsExactly(
                window("2026-04-01T00:00:00Z", "2026-05-01T00:00:00Z"),
                window("2026-01-15T00:00:00Z", "2026-04-01T00:00:00Z"));
        // received before a month's bound: the month before it is the newest
        assertThat(JobSearch.windows(query(null, at("2026-03-01T00:00:00Z"), null), HELD)).containsExactly(
                window("2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"),
                window("2025-11-01T00:00:00Z", "2026-02-01T00:00:00Z"));
        assertThat(JobSearch.windows(query(null, at("2026-03-10T00:00:00Z"), null), HELD)).first()
                .isEqualTo(window("2026-03-01T00:00:00Z", "2026-03-10T00:00:00Z"));
    }

    @Test
    void oneMonthOfJobsIsOneWindowAndNoJobsNone() {
        JobSearch.Held oneMonth = new JobSearch.Held(at("2026-04-02T00:00:00Z"), at("2026-04-14T10:00:00Z"), 0);
        assertThat(JobSearch.windows(query(null, null, null), oneMonth))
                .containsExactly(window("2026-04-01T00:00:00Z", "2026-05-01T00:00:00Z"));
        assertThat(JobSearch.windows(query(null, null, null), new JobSearch.Held(null, null, 0))).isEmpty();
    }

    private static JobQuery query(Instant since, Instant before, PageCursor after) {
        return new JobQuery(null, null, since, before, "4242.csv", 0, 25, after, false);
    }

    private static JobSearch.Window window(String from, String until) {
        return new JobSearch.Window(at(from), at(until));
    }

    private static Instant at(String text) {
        return Instant.parse(text);
    }
}
