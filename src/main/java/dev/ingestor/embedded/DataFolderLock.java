package dev.ingestor.embedded;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * zonky's lock on an embedded data folder: the file {@value #FILE} in it, which the JVM running its PostgreSQL holds
 * locked ({@code FileChannel.tryLock}, the whole file, exclusive) from before the server starts until it stops. The
 * operating system lets go of it when that JVM ends, however it ends; the postmaster, a child process, never holds
 * it. So a start that finds it held by another process finds the folder in use by a running Ingestor, and is refused
 * before anything in the folder is touched or any process signalled. A start that gets it holds it while it looks at
 * the folder (a cut-short first start, a postmaster a killed JVM left running) and lets go just before zonky takes it.
 */
final class DataFolderLock implements AutoCloseable {

    /** zonky's name for it, in the data folder ({@code EmbeddedPostgres.LOCK_FILE_NAME}). */
    static final String FILE = "epg-lock";
    /**
     * Channels on a folder this JVM itself runs, kept open for good: closing any channel on the file would end every
     * lock this process holds on it (POSIX locks are the process's), the running server's own among them.
     */
    private static final List<FileChannel> KEPT_OPEN = new CopyOnWriteArrayList<>();

    private final FileChannel channel;

    private DataFolderLock(FileChannel channel) {
        this.channel = channel;
    }

    /**
     * Takes the lock of {@code dir}, or refuses the start when a running instance holds it. A folder without the file
     * has never had a server started by zonky, so nobody runs on it: nothing to take, and nothing written into it.
     */
    static DataFolderLock take(Path dir) throws IOException {
        Path file = dir.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            return new DataFolderLock(null);
        }
        FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException heldByThisJvm) {
            KEPT_OPEN.add(channel);
            throw inUse(dir);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        if (lock == null) {
            channel.close();
            throw inUse(dir);
        }
        return new DataFolderLock(channel);
    }

    static String inUseMessage(Path dir) {
        return "the embedded PostgreSQL data folder " + dir + " is in use by another running Ingestor (it holds "
                + dir.resolve(FILE) + " locked) and is left as it is. Stop that instance first, or give this one a"
                + " folder of its own with ingestor.data-dir";
    }

    private static IllegalStateException inUse(Path dir) {
        return new IllegalStateException(inUseMessage(dir));
    }

    /** Lets go of the lock (closing the channel releases it), for zonky to take. */
    @Override
    public void close() throws IOException {
        if (channel != null) {
            channel.close();
        }
    }
}
