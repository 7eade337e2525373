package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.intake.IntakeFailureLog;
import dev.ingestor.intake.IntakeGate;
import dev.ingestor.intake.IntakeSettings;
import dev.ingestor.metrics.IngestorMetrics;
import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * In a rolling deploy that adds a supplier, its folder is unknown to the instances still on the old configuration:
 * they leave its files for {@code ingestor.intake.unknown-folder-grace} to the instances that know it, rather than
 * reject them for good. A sweeper of its own, over an inbox of its own, with the default grace of a quarter hour.
 */
class StrayGraceTest extends IngestorTestSupport {

    @Autowired
    IntakeGate gate;
    @Autowired
    LinkRefusals refusals;
    @Autowired
    IntakeFailureLog failures;
    @Autowired
    IngestorMetrics metrics;

    @Test
    void aFolderNoSupplierOfThisInstanceHasIsLeftForTheGraceAndFilesAtTheRootAreNot(@TempDir Path inbox)
            throws Exception {
        IngestorProperties properties = new IngestorProperties();
        properties.setInboxDir(inbox);
        IntakeSettings intake = new IntakeSettings();
        assertThat(intake.getUnknownFolderGrace()).isEqualTo(Duration.ofMinutes(15));
        StrayFileSweeper sweeper = new StrayFileSweeper(properties, gate, refusals, failures, metrics, intake);
        Path newSupplier = Files.createDirectories(inbox.resolve("NEWCO"));
        Path recent = aged(newSupplier.resolve("recent.csv"), Duration.ofMinutes(10));
        // copied with its time kept (scp -p, rsync -t): older than the grace, and seen for the first time now
        Path copied = aged(newSupplier.resolve("copied.csv"), Duration.ofHours(3));
        Path atRoot = aged(inbox.resolve("root.csv"), Duration.ofSeconds(10));

        assertThat(sweeper.sweep()).isEqualTo(1);
        assertThat(recent).as("another instance's to take").exists();
        assertThat(copied).as("another instance's to take").exists();
        assertThat(atRoot).doesNotExist();
        assertThat(filesIn(inbox.resolve(".rejected"))).hasSize(1);

        // once this instance has seen them there for the grace, they are answered
        intake.setUnknownFolderGrace(Duration.ofMillis(300));
        StrayFileSweeper shortGrace = new StrayFileSweeper(properties, gate, refusals, failures, metrics, intake);
        assertThat(shortGrace.sweep()).as("seen for the first time").isZero();
        Thread.sleep(400);
        assertThat(shortGrace.sweep()).isEqualTo(2);
        assertThat(filesIn(newSupplier.resolve(".rejected"))).hasSize(2);
    }

    private static Path aged(Path file, Duration age) throws Exception {
        Files.writeString(file, "source_id,sku,quantity,delivery_date\n");
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(age)));
        return file;
    }
}
