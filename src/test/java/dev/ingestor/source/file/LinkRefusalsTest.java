package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.ingestor.support.CapturedLogs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Refused links counted per poll, reported per folder and reason when the count changes. */
class LinkRefusalsTest {

    private static final String LINK = "the file is a symbolic link";

    private final LinkRefusals refusals = new LinkRefusals();
    private CapturedLogs logs;

    @BeforeEach
    void capture() {
        logs = CapturedLogs.of("dev.ingestor.intake");
    }

    @AfterEach
    void release() {
        logs.close();
    }

    private void poll(String route, boolean complete, String folder, int links) {
        refusals.beginPoll();
        for (int i = 0; i < links; i++) {
            refusals.refuse(folder, LINK, "link-" + i + ".csv");
        }
        refusals.endPoll(route, complete);
    }

    @Test
    void aStandingCountIsReportedOnceAndAgainWhenItChanges() {
        poll("r", true, "/inbox/A", 300);
        poll("r", true, "/inbox/A", 300);
        poll("r", true, "/inbox/A", 300);
        assertThat(logs.messages()).singleElement().asString()
                .startsWith("intake refused entries=300 folder=\"/inbox/A\"")
                .contains("reason=\"" + LINK + "\"").contains("example=\"link-0.csv\"").contains("route=r");

        poll("r", true, "/inbox/A", 301);
        assertThat(logs.messages()).hasSize(2).last().asString().contains("entries=301 ");
        poll("r", true, "/inbox/A", 0);
        assertThat(logs.messages()).hasSize(3).last().asString().startsWith("intake refuses no entry any more");
        poll("r", true, "/inbox/A", 0);
        assertThat(logs.messages()).hasSize(3);
        assertThat(refusals.reported("r", "/inbox/A", LINK)).isZero();
    }

    @Test
    void foldersAndReasonsAreCountedApartAndRoutesReportApart() {
        refusals.beginPoll();
        refusals.refuse("/inbox/A", LINK, "a.csv");
        refusals.refuse("/inbox/A", "the outcome folder .done is a symbolic link", "b.csv");
        refusals.refuse("/inbox/B", LINK, "c.csv");
        refusals.endPoll("r", true);
        assertThat(logs.messages()).hasSize(3);
        // another route polling the same folder reports what it refused itself
        poll("other", true, "/inbox/A", 1);
        assertThat(logs.messages()).hasSize(4);
    }

    @Test
    void aPollStoppedAtItsLimitReportsOnlyAGrowingCount() {
        poll("r", true, "/inbox/A", 100);
        poll("r", false, "/inbox/A", 40);
        poll("r", false, "/inbox/A", 0);
        assertThat(logs.messages()).hasSize(1);
        poll("r", false, "/inbox/A", 120);
        assertThat(logs.messages()).hasSize(2).last().asString().contains("entries=120 ");
        poll("r", true, "/inbox/A", 80);
        assertThat(logs.messages()).hasSize(3).last().asString().contains("entries=80 ");
    }

    @Test
    void aFailedPollReportsNothingAndTheLastReportStands() {
        poll("r", true, "/inbox/A", 3);
        refusals.beginPoll();
        refusals.refuse("/inbox/A", LINK, "x.csv");
        refusals.abandonPoll();
        assertThat(logs.messages()).hasSize(1);
        assertThat(refusals.reported("r", "/inbox/A", LINK)).isEqualTo(3);
    }

    @Test
    void outsideAPollARefusalIsLoggedAtOnce() {
        refusals.refuse("/inbox/A", "a symbolic link where a file was to be moved", ".done");
        assertThat(logs.messages()).singleElement().asString()
                .startsWith("intake refused entries=1 folder=\"/inbox/A\"")
                .contains("example=\".done\"");
    }

    @Test
    void namesAreEscapedAndMemoryIsBoundedPerPoll() {
        refusals.beginPoll();
        refusals.refuse("/inbox/A", LINK, "evil\nintake accepted\".csv");
        for (int i = 0; i < LinkRefusals.MAX_FOLDERS_PER_POLL + 500; i++) {
            refusals.refuse("/inbox/F" + i, LINK, "l.csv");
        }
        refusals.endPoll("r", true);
        List<String> lines = logs.messages();
        assertThat(lines).hasSize(LinkRefusals.MAX_FOLDERS_PER_POLL + 1);
        assertThat(lines.get(0)).contains("example=\"evil\\u000Aintake accepted\\u0022.csv\"").doesNotContain("\n");
        assertThat(lines).last().asString().contains("entries=501 ")
                .contains("folder=\"" + LinkRefusals.FURTHER_FOLDERS + "\"");
    }
}
