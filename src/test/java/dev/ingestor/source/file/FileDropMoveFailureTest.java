package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;

import dev.ingestor.support.CapturedLogLines;
import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A dropped file whose job was committed but which could not be moved away afterwards (its outcome folder is
 * not a folder) stays in the inbox and is read again: the content key makes that read a duplicate of the one
 * job, never a second job, and the failed move is logged.
 */
@Timeout(120)
class FileDropMoveFailureTest extends IngestorTestSupport {

    private static final Path ACME = INBOX.resolve("ACME");

    @Test
    void aFileThatCannotBeMovedAfterCommitIsReadAgainAsADuplicateOfItsOneJob() throws Exception {
        Files.createDirectories(ACME);
        // a plain file where the .done folder should be: every move to .done/ fails
        Files.write(ACME.resolve(".done"), new byte[0]);
        String name = "stuck-" + UUID.randomUUID() + ".csv";
        byte[] content = ("source_id,sku,quantity,delivery_date\nM-1,SKU,1,2026-12-01\n")
                .getBytes(StandardCharsets.UTF_8);

        try (CapturedLogLines camel = CapturedLogLines.of("org.apache.camel")) {
            drop("ACME", name, content);
            awaitJobs(1);

            // the move failed after the commit: reported with the file's name
            await().atMost(
                    Duration.ofSeconds(20)).until(
                            () -> camel
                                    .events().stream().anyMatch(
                                            e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN)
                                                    && (e.getFormattedMessage().contains(name) || String
                                                            .valueOf(e.getThrowableProxy() == null
                                                                    ? ""
                                                                    : e.getThrowableProxy().getMessage())
                                                            .contains(name))));

            // the next poll reads the file again: the content key answers "duplicate" and the file moves on
            await().atMost(Duration.ofSeconds(20)).until(() -> filesIn(ACME.resolve(".duplicate")).size() == 1);
        }
        assertThat(filesIn(ACME)).extracting(p -> p.getFileName().toString()).containsExactly(".done");
        assertThat(filesIn(ACME.resolve(".duplicate")).get(0).getFileName().toString()).endsWith(name);
        assertThat(jobCount()).isEqualTo(1);
        assertThat(keyCount()).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT duplicate_count FROM import_job", Integer.class)).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT file_name FROM import_job", String.class)).isEqualTo(name);
    }
}
