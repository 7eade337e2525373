package dev.ingestor.intake;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.UUID;

import dev.ingestor.config.IngestorProperties;
import org.apache.camel.Body;
import org.apache.camel.Header;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * Content-addressed storage for received files: {@code raw/{supplier}/{sha[0..2]}/{sha256}}.
 *
 * <p>The bytes are read once: each buffer is hashed and written in the same pass, so a file of any size
 * costs one buffer of heap. The file is written under a temporary name and renamed into place once its hash
 * is known; storing the same content twice is harmless, which is what lets intake store before it knows
 * whether the content is new.
 */
@Component
public class RawStore {

    private static final int BUFFER_SIZE = 256 * 1024;
    /** Most pushes are a few KiB: a large buffer for each would be most of what a request allocates. */
    private static final int FIRST_BUFFER_SIZE = 16 * 1024;

    private final Path root;
    private final Path incoming;
    private final boolean fsync;

    @Autowired
    public RawStore(IngestorProperties properties) {
        this(properties.rawDir(), properties.getIntake().isFsync());
    }

    public RawStore(Path root, boolean fsync) {
        this.root = root.toAbsolutePath();
        this.incoming = this.root.resolve(".incoming");
        this.fsync = fsync;
    }

    /**
     * Streams {@code body} into the store. {@code maxSize} (the {@link IntakeHeaders#MAX_SIZE} header, set by
     * HTTP pushes) bounds it: a longer body is refused with {@link ContentTooLargeException}, stored nowhere.
     */
    public StoredContent store(@Body InputStream body, @Header(IntakeHeaders.SUPPLIER) String supplier,
                               @Header(IntakeHeaders.MAX_SIZE) Long maxSize) throws IOException {
        if (body == null) {
            throw new RejectedDropException("no content to ingest (the message body is empty)");
        }
        long limit = maxSize == null ? Long.MAX_VALUE : maxSize;
        Files.createDirectories(incoming);
        Path temp = incoming.resolve(UUID.randomUUID() + ".part");
        MessageDigest sha256 = newSha256();
        long size = 0;
        ContentKey key;
        Path target;
        boolean known;
        try (InputStream in = body;
             FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            byte[] buffer = new byte[FIRST_BUFFER_SIZE];
            ByteBuffer wrapped = ByteBuffer.wrap(buffer);
            int read;
            while ((read = in.read(buffer)) != -1) {
                size += read;
                if (size > limit) {
                    throw new ContentTooLargeException(limit);
                }
                sha256.update(buffer, 0, read);
                write(out, wrapped, read);
                if (read == buffer.length && buffer.length < BUFFER_SIZE) {
                    // not a small file after all: larger reads from here on
                    buffer = new byte[BUFFER_SIZE];
                    wrapped = ByteBuffer.wrap(buffer);
                }
            }
            key = ContentKey.of(supplier, sha256.digest());
            target = pathOf(key);
            // the rename into place is atomic, so a file under this name is complete: these bytes are already kept
            known = Files.exists(target);
            if (fsync && !known) {
                // the job that points at this file commits right after; the bytes must be on disk first
                out.force(true);
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        if (known) {
            Files.deleteIfExists(temp);
        } else {
            Files.createDirectories(target.getParent());
            // same name means same bytes, so replacing a copy that appeared meanwhile changes nothing
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        return new StoredContent(key, size, target);
    }

    /** Stores content made here (an HTTP item batch as JSON Lines). */
    public StoredContent storeContent(String supplier, byte[] content) throws IOException {
        return store(new java.io.ByteArrayInputStream(content), supplier, null);
    }

    private static void write(FileChannel out, ByteBuffer wrapped, int length) throws IOException {
        wrapped.clear().limit(length);
        while (wrapped.hasRemaining()) {
            out.write(wrapped);
        }
    }

    public Path pathOf(ContentKey key) {
        return root.resolve(key.supplier()).resolve(key.sha256().substring(0, 2)).resolve(key.sha256());
    }

    public InputStream open(ContentKey key) {
        try {
            return Files.newInputStream(pathOf(key));
        } catch (IOException e) {
            throw new UncheckedIOException("raw file of " + key + " cannot be read", e);
        }
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
