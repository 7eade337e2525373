package dev.ingestor.intake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

import org.apache.camel.Exchange;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A supplier that writes a file again while intake reads it (in place, or a file renamed over it) leaves intake half
 * of one version and half of another: the read fails as an I/O failure, which the source tries again, and nothing of
 * it is kept. On real files; the remote case by the length its listing gave.
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

    @Test
    void aRemoteFileReadShorterThanListedFailsAndKeepsNothing() throws Exception {
        RawStore store = new RawStore(folder.resolve("raw"), false);
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            GenericFile<Object> remote = new GenericFile<>();
            remote.setFile(new Object()); // a remote file: no java.io.File
            remote.setFileNameOnly("stock.csv");
            remote.setFileName("stock.csv");
            remote.setFileLength(20);
            remote.setBody(new ByteArrayInputStream("source_id\nA-1\n".getBytes(StandardCharsets.UTF_8)));
            Exchange exchange = new DefaultExchange(camel);
            exchange.getMessage().setBody(remote);

            assertThatThrownBy(() -> store.receiveBody(exchange, "ACME", null, null))
                    .isInstanceOf(FileChangedWhileReadException.class)
                    .hasMessageContaining("20 bytes when listed, 14 read");
            try (var left = Files.list(folder.resolve("raw").resolve(".incoming"))) {
                assertThat(left).as("nothing of it kept").isEmpty();
            }
        }
    }
}
