package dev.ingestor.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The embedded data folder is started only by binaries of the PostgreSQL major that made it, named in its
 * {@code PG_VERSION}. A folder of another major (one made by an Ingestor that ran PostgreSQL 14, say) cannot be
 * opened by these binaries; it is refused before anything touches it (no initdb, no lock file, no pg_hba.conf, no
 * server), and the refusal says how to bring its data over. So does a folder that holds files but no PG_VERSION:
 * nothing is initialised over it.
 */
final class DataFolderMajor {

    /** What {@code <dir>/PG_VERSION} holds: "18", or "9.6" before 10. */
    private static final Pattern MAJOR = Pattern.compile("\\d+(\\.\\d+)?");

    /** The major of the embedded binaries, learned only when a folder names one to compare with. */
    interface BinariesMajor {
        String get() throws IOException;
    }

    private DataFolderMajor() {
    }

    /** Returns when the folder is missing, empty, or of the binaries' major; otherwise throws, naming what to do. */
    static void requireStartable(Path dir, BinariesMajor binaries) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        Path versionFile = dir.resolve("PG_VERSION");
        if (!Files.exists(versionFile)) {
            if (!isEmpty(dir)) {
                throw new IllegalStateException("the embedded PostgreSQL data folder " + dir + " holds files but no"
                        + " PG_VERSION, so it is no PostgreSQL data folder, or an incomplete one; it is neither"
                        + " initialised over nor emptied. Set ingestor.data-dir to another folder (its postgres/ is"
                        + " made anew), or move these files away if nothing in them is needed");
            }
            return;
        }
        String folderMajor;
        try {
            folderMajor = Files.readString(versionFile, StandardCharsets.US_ASCII).trim();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + versionFile + " to tell which PostgreSQL made the embedded"
                    + " data folder: " + e.getMessage(), e);
        }
        if (!MAJOR.matcher(folderMajor).matches()) {
            throw new IllegalStateException(versionFile + " holds \"" + abbreviated(folderMajor) + "\", which names no"
                    + " PostgreSQL version; the embedded data folder " + dir + " is not started");
        }
        String binariesMajor;
        try {
            binariesMajor = binaries.get();
        } catch (IOException e) {
            throw new IllegalStateException("cannot tell which PostgreSQL major the embedded binaries are, so the data"
                    + " folder " + dir + " (PostgreSQL " + folderMajor + ") is not started: " + e.getMessage(), e);
        }
        if (!folderMajor.equals(binariesMajor)) {
            throw new IllegalStateException(otherMajor(dir, folderMajor, binariesMajor));
        }
    }

    static String otherMajor(Path dir, String folderMajor, String binariesMajor) {
        return "the embedded PostgreSQL data folder " + dir + " was made by PostgreSQL " + folderMajor
                + ", and this Ingestor runs PostgreSQL " + binariesMajor + ", which cannot open it; nothing in the"
                + " folder was changed. To go on, either (a) dump it with pg_dumpall while PostgreSQL " + folderMajor
                + " runs it and restore the dump into a fresh folder made by PostgreSQL " + binariesMajor
                + ", or (b) convert"
                + " it with pg_upgrade, which needs the binaries of both PostgreSQL " + folderMajor + " and "
                + binariesMajor + ", or (c) run on an external PostgreSQL: set spring.datasource.url (and its"
                + " username and password), which turns the embedded database off. \"Upgrading the embedded"
                + " PostgreSQL\" in docs/operations.md has the commands";
    }

    static boolean isEmpty(Path dir) {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        } catch (IOException e) {
            throw new IllegalStateException(
                    "cannot list the embedded PostgreSQL data folder " + dir + ": " + e.getMessage(), e);
        }
    }

    private static String abbreviated(String text) {
        return text.length() <= 20 ? text : text.substring(0, 20) + "...";
    }
}
