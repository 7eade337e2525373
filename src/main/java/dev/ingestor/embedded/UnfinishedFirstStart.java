package dev.ingestor.embedded;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first start of an embedded data folder (initdb, the first server start, the app's role and database) is
 * marked by a file beside the folder, {@code <dir>-first-start}, written before it begins and removed once it is
 * done. A start interrupted in between (a kill, a power cut, a container stopped during its first start) leaves
 * a folder initdb never finished: with PG_VERSION and no database, or files and no PG_VERSION. Such a folder
 * never starts, and holds nothing but what initdb wrote, so the next start finds the mark and makes it anew.
 * A folder without the mark (every folder made before the mark existed) is never emptied, nor one that holds a
 * database made after initdb (a release without the mark ran on it, a backup was put back), nor a symbolic link.
 */
final class UnfinishedFirstStart {

    private static final Logger LOG = LoggerFactory.getLogger(UnfinishedFirstStart.class);
    private static final Duration INITDB_WAIT = Duration.ofSeconds(60);
    /** PostgreSQL's FirstNormalObjectId: objects made after initdb get ids from here. */
    private static final long FIRST_NORMAL_OBJECT_ID = 16384;

    private UnfinishedFirstStart() {
    }

    static Path mark(Path dir) {
        return dir.resolveSibling(dir.getFileName() + "-first-start");
    }

    /** Empties what an interrupted first start left in {@code dir}, once its initdb and server have stopped. */
    static void discardLeftovers(Path dir) throws IOException {
        if (!Files.exists(mark(dir))) {
            return;
        }
        awaitInitdbOf(dir);
        if (Files.isSymbolicLink(dir) || holdsADatabaseMadeAfterInitdb(dir)) {
            // a folder in use after all (a release without the mark ran on it, a backup was put back): never emptied
            LOG.warn("{} marks a first start of embedded PostgreSQL in {} as unfinished, but the folder {}; it is kept"
                    + " and the mark removed", mark(dir), dir,
                    Files.isSymbolicLink(dir)
                            ? "is a symbolic link"
                            : "holds a database made after initdb");
            finish(dir);
            return;
        }
        LOG.warn("the first start of embedded PostgreSQL in {} was interrupted before it finished ({} is there):"
                + " the folder holds only what initdb wrote, and is made anew", dir, mark(dir));
        if (Files.isDirectory(dir)) {
            EmbeddedPostgresServer.stopOrphanedPostmaster(dir);
            // its contents, not the folder itself: it may be a mount point
            try (Stream<Path> tree = Files.walk(dir)) {
                for (Path path : tree.sorted(Comparator.reverseOrder()).filter(p -> !p.equals(dir)).toList()) {
                    Files.delete(path);
                }
            }
        }
    }

    /**
     * initdb makes the databases template1, template0 and postgres and their catalogs, all numbered below 16384 (their
     * folders under {@code base/}, their files in them); any database or table made later (the app's database at the
     * end of a first start, the tables of a data folder from before the app had a database of its own, which live in
     * database postgres) is numbered from there.
     */
    private static boolean holdsADatabaseMadeAfterInitdb(Path dir) throws IOException {
        Path base = dir.resolve("base");
        if (!Files.isDirectory(base)) {
            return false;
        }
        try (Stream<Path> files = Files.walk(base, 2)) {
            return files.anyMatch(path -> !path.equals(base) && numberedAfterInitdb(path.getFileName().toString()));
        }
    }

    /** A database folder ("16390") or a table's file ("16390", "16390_fsm", "16390.1") made after initdb. */
    private static boolean numberedAfterInitdb(String name) {
        int digits = 0;
        while (digits < name.length() && Character.isDigit(name.charAt(digits))) {
            digits++;
        }
        return digits > 0 && digits < 10 && Long.parseLong(name.substring(0, digits)) >= FIRST_NORMAL_OBJECT_ID;
    }

    static boolean isMissingOrEmpty(Path dir) {
        return Files.isDirectory(dir) ? DataFolderMajor.isEmpty(dir) : !Files.exists(dir);
    }

    /** Marks {@code dir}'s first start as begun, durably, before initdb writes a byte. */
    static void begin(Path dir) throws IOException {
        try (FileChannel file = FileChannel.open(mark(dir), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            file.force(true);
        }
        syncFolder(dir.getParent());
    }

    /** The first start is done: the folder is a cluster with the app's role and database from now on. */
    static void finish(Path dir) throws IOException {
        if (Files.deleteIfExists(mark(dir))) {
            syncFolder(dir.getParent());
        }
    }

    /**
     * The initdb of a JVM that was killed runs on as an orphan: its folder is emptied only once it has ended, so
     * that it neither writes into the new one nor removes it as its own on a failure.
     */
    private static void awaitInitdbOf(Path dir) throws IOException {
        Instant deadline = Instant.now().plus(INITDB_WAIT);
        List<ProcessHandle> initdbs = ProcessHandle.allProcesses()
                .filter(p -> p.info().command().orElse("").endsWith("initdb"))
                .filter(p -> List.of(p.info().arguments().orElse(new String[0])).stream()
                        .anyMatch(argument -> argument.contains(dir.toString())))
                .toList();
        for (ProcessHandle initdb : initdbs) {
            LOG.warn("waiting for the initdb (pid {}) an earlier run left on {} to end", initdb.pid(), dir);
            try {
                initdb.onExit().get(Math.max(1, Duration.between(Instant.now(), deadline).toMillis()),
                        java.util.concurrent.TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                throw new IOException("the initdb (pid " + initdb.pid() + ") an earlier run left on " + dir
                        + " did not end within " + INITDB_WAIT.toSeconds() + " s; stop it, then start again", e);
            }
        }
    }

    /** A file's creation or removal is durable once its folder is synced. */
    static void syncFolder(Path folder) throws IOException {
        try (FileChannel channel = FileChannel.open(folder, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
