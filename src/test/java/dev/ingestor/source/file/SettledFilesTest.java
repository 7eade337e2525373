package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** Which files have settled, by this instance's clock across polls, and which are forgotten. */
class SettledFilesTest {

    private static final Duration MIN_AGE = Duration.ofMillis(200);

    @Test
    void aFileIsSettledOnlyOnceAnEarlierPollMinAgeAgoSawTheSameSizeAndTime() throws Exception {
        SettledFiles files = new SettledFiles(MIN_AGE);
        files.beginPoll();
        assertThat(files.settled("a.csv", 10, 1_000)).as("first sight").isFalse();
        files.endPoll(true);
        Thread.sleep(250);
        files.beginPoll();
        assertThat(files.settled("a.csv", 12, 1_000)).as("grew: starts again").isFalse();
        files.endPoll(true);
        files.beginPoll();
        assertThat(files.settled("a.csv", 12, 1_000)).as("the same, but not for min-age yet").isFalse();
        files.endPoll(true);
        Thread.sleep(250);
        files.beginPoll();
        assertThat(files.settled("a.csv", 12, 2_000)).as("time of change moved: starts again").isFalse();
        files.endPoll(true);
        Thread.sleep(250);
        files.beginPoll();
        assertThat(files.settled("a.csv", 12, 2_000)).isTrue();
        files.endPoll(true);
    }

    @Test
    void aTimeOfChangeFarInThePastOrFutureCountsForNothing() {
        SettledFiles files = new SettledFiles(Duration.ofSeconds(10));
        files.beginPoll();
        assertThat(files.settled("behind.csv", 10, 0)).isFalse();
        assertThat(files.settled("ahead.csv", 10, Long.MAX_VALUE)).isFalse();
        files.endPoll(true);
        files.beginPoll();
        assertThat(files.settled("behind.csv", 10, 0)).isFalse();
        assertThat(files.settled("ahead.csv", 10, Long.MAX_VALUE)).isFalse();
    }

    @Test
    void aPollThatSawTheWholeFolderForgetsTheFilesItDidNotList() {
        SettledFiles files = new SettledFiles(MIN_AGE);
        files.beginPoll();
        files.settled("gone.csv", 1, 1);
        files.settled("kept.csv", 1, 1);
        files.endPoll(true);
        files.beginPoll();
        files.settled("kept.csv", 1, 1);
        files.endPoll(true);
        assertThat(files.remembered()).isEqualTo(1);
    }

    @Test
    void aPollStoppedAtItsLimitKeepsUnlistedFilesThatHaveNotSettledForAWhile() throws Exception {
        SettledFiles files = new SettledFiles(MIN_AGE);
        files.beginPoll();
        files.settled("past-the-limit.csv", 1, 1);
        files.settled("taken.csv", 1, 1);
        files.endPoll(true);
        Thread.sleep(250);
        files.beginPoll();
        assertThat(files.settled("taken.csv", 1, 1)).isTrue();
        files.endPoll(false);
        files.beginPoll();
        files.endPoll(false);
        assertThat(files.remembered()).as("the one found settled went; the one past the limit is kept").isEqualTo(1);
        for (int i = 0; i < SettledFiles.FORGET_AFTER_POLLS; i++) {
            files.beginPoll();
            files.endPoll(false);
        }
        assertThat(files.remembered()).as("not listed for %d polls", SettledFiles.FORGET_AFTER_POLLS).isZero();
    }
}
