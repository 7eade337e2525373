package dev.ingestor.intake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;

import dev.ingestor.job.ContentKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RawStoreTest {

    @TempDir
    Path root;

    @Test
    void storesUnderTheHashComputedWhileWriting() throws Exception {
        byte[] bytes = new byte[1_000_003];
        new Random(7).nextBytes(bytes);
        StoredContent stored = new RawStore(root, true).store(new ByteArrayInputStream(bytes), "ACME", null);

        String expected = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        assertThat(stored.key()).isEqualTo(new ContentKey("ACME", expected));
        assertThat(stored.size()).isEqualTo(bytes.length);
        assertThat(stored.path()).isEqualTo(root.resolve("ACME").resolve(expected.substring(0, 2)).resolve(expected));
        assertThat(stored.path()).hasBinaryContent(bytes);
    }

    @Test
    void storingTheSameBytesTwiceKeepsOneCopyAndNoLeftovers() throws Exception {
        RawStore store = new RawStore(root, false);
        StoredContent first = store.store(new ByteArrayInputStream("same".getBytes()), "ACME", null);
        StoredContent second = store.store(new ByteArrayInputStream("same".getBytes()), "ACME", null);

        assertThat(second.path()).isEqualTo(first.path());
        try (var incoming = Files.list(root.resolve(".incoming"))) {
            assertThat(incoming).isEmpty();
        }
    }

    @Test
    void aStreamThatBreaksLeavesNoPartialFile() throws Exception {
        InputStream broken = new InputStream() {
            private int left = 100_000;

            @Override
            public int read() throws IOException {
                if (left <= 0) {
                    throw new IOException("connection reset (injected)");
                }
                left--;
                return 'x';
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (left <= 0) {
                    throw new IOException("connection reset (injected)");
                }
                int n = Math.min(len, left);
                java.util.Arrays.fill(b, off, off + n, (byte) 'x');
                left -= n;
                return n;
            }
        };
        assertThatThrownBy(() -> new RawStore(root, false).store(broken, "ACME", null))
                .hasMessageContaining("connection reset");
        try (var all = Files.walk(root)) {
            assertThat(all.filter(Files::isRegularFile)).isEmpty();
        }
    }

    @Test
    void aBodyOverTheLimitIsRefusedAndLeavesNothing() {
        RawStore store = new RawStore(root, false);
        assertThatThrownBy(() -> store.store(new ByteArrayInputStream(new byte[1001]), "ACME", 1000L))
                .isInstanceOf(ContentTooLargeException.class).hasMessageContaining("1000 bytes");
        assertThat(org.assertj.core.api.Assertions.catchThrowable(
                () -> store.store(new ByteArrayInputStream(new byte[1000]), "ACME", 1000L))).isNull();
    }

    @Test
    void knownContentIsNotWrittenAgain() throws Exception {
        RawStore store = new RawStore(root, true);
        StoredContent first = store.store(new ByteArrayInputStream("kept".getBytes()), "ACME", null);
        java.nio.file.attribute.FileTime written = Files.getLastModifiedTime(first.path());
        Thread.sleep(20); // on purpose: a rewrite would now show a later modification time
        store.store(new ByteArrayInputStream("kept".getBytes()), "ACME", null);
        assertThat(Files.getLastModifiedTime(first.path())).isEqualTo(written);
    }

    @Test
    void partialFilesLeftByAWriteThatDiedAreRemovedAtStart() throws Exception {
        Path incoming = Files.createDirectories(root.resolve(".incoming"));
        Path old = Files.write(incoming.resolve("dead.part"), new byte[10]);
        Files.setLastModifiedTime(old,
                java.nio.file.attribute.FileTime.from(java.time.Instant.now().minus(java.time.Duration.ofHours(2))));
        // another instance sharing the folder may still be writing this one
        Path fresh = Files.write(incoming.resolve("live.part"), new byte[10]);
        dev.ingestor.config.IngestorProperties properties = new dev.ingestor.config.IngestorProperties();
        properties.setRawDir(root);

        new RawStore(properties, new IntakeSettings());

        assertThat(old).doesNotExist();
        assertThat(fresh).exists();
        assertThat(new RawStore(root, false).removeLeftovers()).isZero();
    }

    /** A store with fsync that adds each folder it forces to {@code synced}. */
    private RawStore forcingInto(java.util.List<Path> synced) {
        return new RawStore(root, true) {
            @Override
            protected void syncDirectory(Path folder) throws IOException {
                super.syncDirectory(folder);
                synced.add(folder);
            }
        };
    }

    @Test
    void withFsyncTheFolderIsForcedAfterTheRenameIntoPlace() throws Exception {
        java.util.List<Path> synced = new java.util.ArrayList<>();
        RawStore store = forcingInto(synced);
        StoredContent first = store.store(new ByteArrayInputStream("durable".getBytes()), "ACME", null);
        // new folders: their parents hold their names
        assertThat(synced).containsExactly(root.toAbsolutePath(), first.path().getParent().getParent(),
                first.path().getParent());

        synced.clear();
        StoredContent second = store.store(new ByteArrayInputStream("durable too".getBytes()), "ACME", null);
        assertThat(synced).contains(second.path().getParent());
        synced.clear();
        Files.setLastModifiedTime(first.path(), java.nio.file.attribute.FileTime
                .from(java.time.Instant.now().minus(java.time.Duration.ofHours(2))));
        store.store(new ByteArrayInputStream("durable".getBytes()), "ACME", null);
        assertThat(synced).as("known bytes placed long ago: nothing renamed, the name on disk").isEmpty();
    }

    /**
     * A run killed between its rename and forcing the folder left a name that only the page cache holds: the next
     * arrival of the same bytes finds the file in place and forces its folders before its job can commit.
     */
    @Test
    void knownBytesPutInPlaceJustNowHaveTheirFoldersForced() throws Exception {
        RawStore killed = new RawStore(root, true) {
            @Override
            protected void syncDirectory(Path folder) throws IOException {
                throw new IOException("killed before the folder was forced");
            }
        };
        assertThatThrownBy(() -> killed.store(new ByteArrayInputStream("in place".getBytes()), "ACME", null))
                .hasMessageContaining("killed");
        java.util.List<Path> synced = new java.util.ArrayList<>();
        RawStore next = forcingInto(synced);
        StoredContent found = next.store(new ByteArrayInputStream("in place".getBytes()), "ACME", null);
        assertThat(synced).containsExactly(root.toAbsolutePath(), found.path().getParent().getParent(),
                found.path().getParent());
    }

    @Test
    void withoutFsyncNoFolderIsForced() throws Exception {
        java.util.List<Path> synced = new java.util.ArrayList<>();
        RawStore store = new RawStore(root, false) {
            @Override
            protected void syncDirectory(Path folder) {
                synced.add(folder);
            }
        };
        store.store(new ByteArrayInputStream("fast".getBytes()), "ACME", null);
        assertThat(synced).isEmpty();
    }

    @Test
    void aSymbolicLinkIsNeverOpened() throws Exception {
        Path secret = Files.writeString(root.resolve("secret.txt"), "root:x:0:0");
        Path link = Files.createSymbolicLink(root.resolve("leak.csv"), secret);
        assertThatThrownBy(() -> LocalFiles.openRegularFile(link)).isInstanceOf(RejectedDropException.class)
                .hasMessageContaining("symbolic link").hasMessageNotContaining("root:x");
        Path realFolder = Files.createDirectories(root.resolve("real"));
        Files.writeString(realFolder.resolve("a.csv"), "a");
        Path linkedFolder = Files.createSymbolicLink(root.resolve("linked"), realFolder);
        assertThatThrownBy(() -> LocalFiles.openRegularFile(linkedFolder.resolve("a.csv")))
                .isInstanceOf(RejectedDropException.class)
                .hasMessageContaining("symbolic link");
    }
}
