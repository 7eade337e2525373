package dev.ingestor.intake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A supplier that writes a file again while intake reads it (in place, or a file renamed over it) leaves intake half
 * of one version and half of another: the read fails as an I/O failure, which the source tries again, and nothing of
 * it is kept. On real files.
 */
class FileChangedWhileReadTest {

    @TempDir
    Path folder;

    private Path file(String name, String content) throws Exception {
        Path file = Files.writeString(folder.resolve(name), content);
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().minusSeconds(60)));
        return file;
    }

    private static byte[] readAll(InputStream in) throws Exception {
        try (in) {
            return in.readAllBytes();
        }
    }

    @Test
    void aFileReadAsItWasOpenedReadsWhole() throws Exception {
        Path file = file("stock.csv", "source_id\nA-1\n");
        assertThat(readAll(LocalFiles.openRegularFile(file))).asString().isEqualTo("source_id\nA-1\n");
    }

    /** A file whose route found it settled at another size or time of change is not opened: it changed since. */
    @Test
    void aFileNotAsItWasFoundSettledIsNotOpened() throws Exception {
        Path file = file("stock.csv", "source_id\nA-1\n");
        FileState now = FileState.now(file);
        assertThat(readAll(LocalFiles.openRegularFile(file, now))).asString().isEqualTo("source_id\nA-1\n");
        FileState shorter = new FileState(now.size() - 4, now.modifiedMillis(), null);
        assertThatThrownBy(() -> LocalFiles.openRegularFile(file, shorter))
                .isInstanceOf(FileChangedSinceSettledException.class)
                .hasMessageContaining("listed 10 bytes").hasMessageContaining("opened 14 bytes");
        FileState earlier = new FileState(now.size(), now.modifiedMillis() - 1, null);
        assertThatThrownBy(() -> LocalFiles.openRegularFile(file, earlier))
                .isInstanceOf(FileChangedSinceSettledException.class);
    }

    @Test
    void aFileWrittenOnWhileReadFails() throws Exception {
        Path file = file("stock.csv", "source_id\nA-1\n");
        LocalFileInput in = LocalFiles.openRegularFile(file);
        assertThat(in.read(new byte[4])).isEqualTo(4);
        Files.writeString(file, "A-2\n", StandardOpenOption.APPEND);
        assertThatThrownBy(() -> readAll(in)).isInstanceOf(FileChangedWhileReadException.class)
                .hasMessageContaining("stock.csv").hasMessageContaining("14 bytes when opened, 18 read");
    }

    @Test
    void aFileWrittenAgainInPlaceWithTheSameLengthFails() throws Exception {
        Path file = file("stock.csv", "source_id\nA-1\n");
        LocalFileInput in = LocalFiles.openRegularFile(file);
        assertThat(in.read(new byte[4])).isEqualTo(4);
        Files.writeString(file, "source_id\nB-2\n"); // truncated and written again: the same length, a new time
        assertThatThrownBy(() -> readAll(in)).isInstanceOf(FileChangedWhileReadException.class)
                .hasMessageContaining("now 14 bytes, changed at");
    }

    @Test
    void aFileRenamedOverTheOneReadFails() throws Exception {
        Path file = file("stock.csv", "source_id\nA-1\n");
        LocalFileInput in = LocalFiles.openRegularFile(file);
        assertThat(in.read(new byte[4])).isEqualTo(4);
        Path next = file(".stock.csv.part", "source_id\nA-1\n"); // the same bytes and time, another file
        Files.setLastModifiedTime(next, Files.getLastModifiedTime(file));
        Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        assertThatThrownBy(() -> readAll(in)).isInstanceOf(FileChangedWhileReadException.class)
                .hasMessageContaining("another file");
    }
}
