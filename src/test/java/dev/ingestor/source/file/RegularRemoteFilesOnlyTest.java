package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.camel.component.file.GenericFile;
import org.junit.jupiter.api.Test;

/** The SFTP route's filter, with plain listed files. */
class RegularRemoteFilesOnlyTest {

    /**
     * Whether a poll saw the whole folder counts the files the filter passed on: Camel stops listing at the poll's
     * limit of them, and a file the read lock refuses afterwards is one the poll did not process, so counting processed
     * files would take a poll cut at its limit for a whole one (and forget the settling files past the cut).
     */
    @Test
    void aPollThatPassedOnAsManyFilesAsItsLimitDidNotSeeTheWholeFolder() {
        RegularRemoteFilesOnly filter = new RegularRemoteFilesOnly(new LinkRefusals(), null);
        filter.passedOn().beginPoll();
        assertThat(filter.accept(listed("a.csv"))).isTrue();
        assertThat(filter.accept(listed("b.csv"))).isTrue();
        assertThat(filter.accept(listed("why?.csv"))).as("refused: not counted").isFalse();

        assertThat(filter.passedOn().sawEverything(2)).as("cut at its limit of 2").isFalse();
        assertThat(filter.passedOn().sawEverything(3)).isTrue();
        assertThat(filter.passedOn().sawEverything(0)).as("no limit").isTrue();
        filter.passedOn().beginPoll();
        assertThat(filter.passedOn().sawEverything(2)).as("a new poll counts afresh").isTrue();
    }

    private static GenericFile<Object> listed(String name) {
        GenericFile<Object> file = new GenericFile<>();
        file.setFileNameOnly(name);
        file.setFileName(name);
        file.setRelativeFilePath(name);
        file.setAbsoluteFilePath("/outbox/" + name);
        file.setFileLength(10);
        file.setLastModified(1_000);
        return file;
    }
}
