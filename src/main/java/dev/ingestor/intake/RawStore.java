package dev.ingestor.intake;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.function.Consumer;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.job.ContentKey;
import org.apache.camel.Body;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Header;
import org.apache.camel.component.file.GenericFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * Content-addressed storage for received files: {@code raw/{supplier}/{sha[0..2]}/{sha256}}.
 *
 * <p>The bytes are read once: each buffer is hashed and written in the same pass, so a file of any size
 * costs one buffer of heap. The file is written under a temporary name in {@code .incoming/} and renamed into
 * place once its hash is known; storing the same content twice is harmless, which is what lets intake store
 * before it knows whether the content is new.
 *
 * <p>Intake does it in two steps: {@link #receive} writes and hashes, {@link #place} puts the bytes in place
 * inside the transaction that registers the key, under the key's lock ({@link ContentKeyLock}), so a raw file
 * that retention deletes meanwhile is put back before its new job commits.
 */
@Component
public class RawStore {

    private static final Logger LOG = LoggerFactory.getLogger(RawStore.class);
    private static final int BUFFER_SIZE = 256 * 1024;
    /** Most pushes are a few KiB: a large buffer for each would be most of what a request allocates. */
    private static final int FIRST_BUFFER_SIZE = 16 * 1024;
    static final String PART = ".part";
    /**
     * A partial file is written to with every buffer while its bytes arrive, and placed within moments of the
     * last one; one untouched this long belongs to a write that died with its process. Younger ones may belong
     * to another instance sharing this folder.
     */
    static final Duration LEFTOVER_AGE = Duration.ofHours(1);

    private final Path root;
    private final Path incoming;
    private final boolean fsync;

    @Autowired
    public RawStore(IngestorProperties properties, IntakeSettings intake) {
        this(properties.rawDir(), intake.isFsync());
        removeLeftovers();
    }

    public RawStore(Path root, boolean fsync) {
        this.root = root.toAbsolutePath();
        this.incoming = this.root.resolve(".incoming");
        this.fsync = fsync;
    }

    /**
     * Streams {@code body} into the store and puts it in place. {@code maxSize} (the {@link IntakeHeaders#MAX_SIZE}
     * header) bounds it: a longer body is refused with {@link ContentTooLargeException}, stored nowhere.
     * Callers that register the key afterwards use {@link #receive} and {@link #place} instead.
     */
    public StoredContent store(InputStream body, String supplier, Long maxSize) throws IOException {
        ReceivedContent received = receive(body, supplier, maxSize, null);
        try {
            return place(received);
        } finally {
            discard(received);
        }
    }

    /**
     * Intake's first step: the message body (a local file is opened without following links) streamed into
     * {@code .incoming/} and hashed, bounded by {@link IntakeHeaders#MAX_SIZE}. The received content is also kept
     * as the exchange property {@link IntakeHeaders#RECEIVED} (for {@link #discard}) and its key as the header
     * {@link IntakeHeaders#KEY}: set here in Java, as route steps they cost an exchange copy per file.
     */
    public ReceivedContent receiveBody(Exchange exchange, @Header(IntakeHeaders.SUPPLIER) String supplier,
            @Header(IntakeHeaders.MAX_SIZE) Long maxSize,
            @Header(IntakeHeaders.MAX_SIZE_PROPERTY) String limitProperty) throws IOException {
        Object body = exchange.getMessage().getBody();
        InputStream in;
        if (body instanceof GenericFile<?> generic && generic.getFile() instanceof File local) {
            LocalFileInput file = LocalFiles.openRegularFile(local.toPath(),
                    exchange.getProperty(IntakeHeaders.SETTLED_AS, FileState.class));
            exchange.setProperty(IntakeHeaders.READ_AS, file.opened());
            in = file;
        } else {
            in = body == null ? null : exchange.getMessage().getBody(InputStream.class);
        }
        ReceivedContent received = receive(in, supplier, maxSize, limitProperty);
        exchange.setProperty(IntakeHeaders.RECEIVED, received);
        exchange.getMessage().setHeader(IntakeHeaders.KEY, received.key());
        return received;
    }

    /** Writes and hashes {@code body} into {@code .incoming/}; nothing is in place yet. */
    public ReceivedContent receive(InputStream body, String supplier, Long maxSize, String limitProperty)
            throws IOException {
        if (body == null) {
            throw new RejectedDropException("no content to ingest (the message body is empty)");
        }
        long limit = maxSize == null ? Long.MAX_VALUE : maxSize;
        if (!Files.isDirectory(incoming)) {
            // made at the first file and after a hand removed it; createDirectories on an existing folder throws
            // and catches an exception inside, once a file
            Files.createDirectories(incoming);
        }
        Path temp = incoming.resolve(UUID.randomUUID() + PART);
        MessageDigest sha256 = newSha256();
        long size = 0;
        ContentKey key;
        boolean synced = false;
        try (InputStream in = body;
                FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            byte[] buffer = new byte[FIRST_BUFFER_SIZE];
            ByteBuffer wrapped = ByteBuffer.wrap(buffer);
            int read;
            while ((read = in.read(buffer)) != -1) {
                size += read;
                if (size > limit) {
                    throw new ContentTooLargeException(limit, limitProperty);
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
            if (fsync && !Files.exists(pathOf(key))) {
                // new bytes (most likely): the job that points at this file commits right after placing it, so
                // they must be on disk first; known bytes are not forced unless they turn out to be needed
                out.force(true);
                synced = true;
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        return new ReceivedContent(key, size, temp, synced);
    }

    /**
     * Puts received bytes in place, unless a complete copy is there already (the rename into place is atomic,
     * so a file under its name is complete). Intake calls it holding the key's lock, inside the transaction
     * that registers the key.
     */
    public StoredContent place(@Body ReceivedContent received) throws IOException {
        Path target = pathOf(received.key());
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            Files.deleteIfExists(received.temp());
            if (fsync && placedRecently(target)) {
                // its placer may have died between the rename and forcing the folder (a kill there leaves the name
                // in the page cache only): forced now, before a job that needs the name commits. Cheap when the
                // placer did force it; a name older than the kernel's writeback is on disk already
                forceFolders(target.getParent(), true);
            }
        } else {
            if (fsync && !received.synced()) {
                try (FileChannel channel = FileChannel.open(received.temp(), StandardOpenOption.WRITE)) {
                    channel.force(true);
                }
            }
            Path folder = target.getParent();
            boolean newFolders = !Files.isDirectory(folder);
            if (newFolders) {
                Files.createDirectories(folder);
            }
            // same name means same bytes, so replacing a copy that appeared meanwhile changes nothing
            Files.move(received.temp(), target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            if (fsync) {
                // the rename is durable only once its folder is: without this a power cut may lose the name
                // of a file whose job has committed
                forceFolders(folder, newFolders);
            }
        }
        return new StoredContent(received.key(), received.size(), target);
    }

    /**
     * Forces {@code folder} to disk, which holds a stored file's name; with {@code andParents}, also the folders that
     * hold its name and its parent's (the supplier's folder, the root), for folders that may be new.
     */
    private void forceFolders(Path folder, boolean andParents) throws IOException {
        if (andParents) {
            syncDirectory(root);
            syncDirectory(folder.getParent());
        }
        syncDirectory(folder);
    }

    /**
     * Whether a stored file was put in place within {@link #WRITEBACK}: its bytes are written just before their
     * rename, so their time is the name's.
     */
    private static boolean placedRecently(Path file) throws IOException {
        return Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS).toInstant()
                .isAfter(Instant.now().minus(WRITEBACK));
    }

    /** Longer than Linux writes a changed folder back to disk by itself (its dirty data expires after 30 s). */
    private static final Duration WRITEBACK = Duration.ofMinutes(2);

    /** Removes what {@link #place} did not use (intake failed before it, or the bytes were known). */
    public void discard(@ExchangeProperty(IntakeHeaders.RECEIVED) ReceivedContent received) throws IOException {
        if (received != null) {
            Files.deleteIfExists(received.temp());
        }
    }

    /** Forces a folder's entries (a rename into it) to disk. */
    protected void syncDirectory(Path folder) throws IOException {
        try (FileChannel channel = FileChannel.open(folder, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    /**
     * Deletes partial files that a write which died with its process left in {@code .incoming/} (those older
     * than {@link #LEFTOVER_AGE}); runs at start and with retention. Returns how many.
     */
    public int removeLeftovers() {
        if (!Files.isDirectory(incoming, LinkOption.NOFOLLOW_LINKS)) {
            return 0;
        }
        Instant before = Instant.now().minus(LEFTOVER_AGE);
        int removed = 0;
        try (DirectoryStream<Path> parts = Files.newDirectoryStream(incoming, "*" + PART)) {
            for (Path part : parts) {
                try {
                    if (Files.getLastModifiedTime(part, LinkOption.NOFOLLOW_LINKS).toInstant().isBefore(before)
                            && Files.deleteIfExists(part)) {
                        removed++;
                    }
                } catch (NoSuchFileException e) {
                    // its write ended (put in place or discarded) between the listing and this look: nothing left
                } catch (IOException e) {
                    LOG.warn("cannot remove the partial file {}: {}", part, e.getMessage());
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot list partial files in {}: {}", incoming, e.getMessage());
        }
        if (removed > 0) {
            LOG.info("removed {} partial file(s) older than {} left in {} by writes that did not finish",
                    removed, LEFTOVER_AGE, incoming);
        }
        return removed;
    }

    private static void write(FileChannel out, ByteBuffer wrapped, int length) throws IOException {
        wrapped.clear().limit(length);
        while (wrapped.hasRemaining()) {
            out.write(wrapped);
        }
    }

    /**
     * The keys of the files stored in {@code folder} (two hex digits: a key's first two) of every supplier's folder,
     * {@code raw/{supplier}/{folder}/}, last written after {@code after} and before {@code before}: for retention's
     * look for files no key refers to. A name that is not a stored file's (an operator's copy, a folder, a link) is
     * passed over.
     */
    public void forEachKeyIn(String folder, Instant after, Instant before, Consumer<ContentKey> action)
            throws IOException {
        if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (DirectoryStream<Path> suppliers = Files.newDirectoryStream(root)) {
            for (Path supplierFolder : suppliers) {
                String supplier = supplierFolder.getFileName().toString();
                Path files = supplierFolder.resolve(folder);
                if (supplier.startsWith(".") || !Files.isDirectory(supplierFolder, LinkOption.NOFOLLOW_LINKS)
                        || !Files.isDirectory(files, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                try (DirectoryStream<Path> stored = Files.newDirectoryStream(files)) {
                    for (Path file : stored) {
                        ContentKey key = storedKey(supplier, folder, file);
                        if (key != null && writtenBetween(file, after, before)) {
                            action.accept(key);
                        }
                    }
                }
            }
        }
    }

    private static ContentKey storedKey(String supplier, String folder, Path file) {
        String name = file.getFileName().toString();
        if (name.length() != 64 || !name.startsWith(folder)) {
            return null;
        }
        try {
            return new ContentKey(supplier, name);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static boolean writtenBetween(Path file, Instant after, Instant before) throws IOException {
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            Instant written = attributes.lastModifiedTime().toInstant();
            return attributes.isRegularFile() && written.isAfter(after) && written.isBefore(before);
        } catch (NoSuchFileException e) {
            // unlinked since the listing
            return false;
        }
    }

    public Path pathOf(ContentKey key) {
        return root.resolve(key.supplier()).resolve(key.sha256().substring(0, 2)).resolve(key.sha256());
    }

    /**
     * The stored bytes of {@code key}. A failure to read them is a {@link RawFileReadException}: the storage's, not the
     * file's.
     */
    public InputStream open(ContentKey key) {
        try {
            return new RawFileInput(openFile(pathOf(key)), key);
        } catch (IOException e) {
            throw new UncheckedIOException("raw file of " + key + " cannot be read", e);
        }
    }

    /** Opens a stored file for reading; a seam for tests that make the storage fail. */
    protected InputStream openFile(Path file) throws IOException {
        return Files.newInputStream(file);
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
