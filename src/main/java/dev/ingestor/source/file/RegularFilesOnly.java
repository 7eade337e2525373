package dev.ingestor.source.file;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;

import org.apache.camel.component.file.GenericFile;
import org.apache.camel.component.file.GenericFileFilter;

/**
 * The file-drop routes' filter: only regular files in a real supplier folder whose outcome folders are real
 * folders. Camel's file consumer follows symbolic links, so without this a link in the inbox would feed intake
 * whatever it points at, and a linked {@code .done/} would move files wherever it points. A refused file is
 * left in place and counted for the poll ({@link LinkRefusals}); being filtered while the folder is listed, it
 * does not count against the poll's limit of files. So is a file whose name Camel cannot take it by: a backslash,
 * which Camel reads as a folder separator (the file would be taken, then fail at every poll for ever), and a name
 * that is not valid in the system's encoding of file names (UTF-8), which Java lists but cannot open by its name.
 *
 * <p>With the read lock {@code changed} and a {@code min-age}, a file is also passed over until it has settled
 * ({@link SettledFiles}: the same size and time of change, listed by polls at least min-age apart by this instance's
 * clock). The time of change is only compared with itself, so a file system whose server's clock runs behind ours, or
 * a writer that sets an old time of change while still writing, does not make a growing file look complete, and a
 * time of change in the future does not hold the poll. Judged while the folder is listed, a file not yet settled
 * holds no poll thread and does not count against the poll's limit of files. The read lock is then the claim only
 * ({@code idempotent}). One filter per route, bound by {@link SupplierRouteInstaller}; its poll strategy ({@link
 * FileDropPollStrategy}) tells it when each poll begins and ends.
 */
public class RegularFilesOnly implements GenericFileFilter<File>, FilesPassedOn.Filter {

    /** Where a file goes after intake (see the file-drop route's move options). */
    public static final List<String> OUTCOME_FOLDERS = List.of(".done", ".duplicate", ".rejected", ".failed");

    static final String LINKED_SUPPLIER_FOLDER = "the supplier folder is a symbolic link; no file in it is taken until"
            + " it is a real folder";
    static final String LINKED_FILE = "the file is a symbolic link; links are never followed";
    static final String BACKSLASH_NAME = "the file name holds a backslash, which Camel reads as a folder separator;"
            + " rename the file without it";
    static final String UNDECODABLE_NAME = "the file name is not valid UTF-8, so it cannot be opened by its name;"
            + " rename the file";

    private final LinkRefusals refusals;
    private final FilesPassedOn passedOn;

    RegularFilesOnly(LinkRefusals refusals, SettledFiles settled) {
        this.refusals = refusals;
        this.passedOn = new FilesPassedOn(settled, true);
    }

    /** Why no file of a supplier is taken while its outcome folder {@code outcome} is a symbolic link. */
    static String linkedOutcomeFolder(String outcome) {
        return "the outcome folder " + outcome + " is a symbolic link; no file of this supplier is taken until it is"
                + " a real folder, so none is moved through it";
    }

    @Override
    public boolean accept(GenericFile<File> file) {
        if (file.isDirectory()) {
            return false;
        }
        Path path = file.getFile().toPath().toAbsolutePath();
        String why = refusal(path);
        if (why != null) {
            refusals.refuse(path.getParent().toString(), why, path.getFileName().toString());
            return false;
        }
        return passedOn.pass(file);
    }

    @Override
    public FilesPassedOn passedOn() {
        return passedOn;
    }

    /** Why the file at {@code path} is not taken, or null when it may be. */
    private static String refusal(Path path) {
        Path folder = path.getParent();
        if (Files.isSymbolicLink(folder)) {
            return LINKED_SUPPLIER_FOLDER;
        }
        for (String outcome : OUTCOME_FOLDERS) {
            if (Files.isSymbolicLink(folder.resolve(outcome))) {
                return linkedOutcomeFolder(outcome);
            }
        }
        String name = path.getFileName().toString();
        if (name.indexOf('\\') >= 0) {
            return BACKSLASH_NAME;
        }
        // Java decodes a name it cannot read as UTF-8 with U+FFFD, and then finds no file by that name
        if (name.indexOf('\uFFFD') >= 0 && !Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return UNDECODABLE_NAME;
        }
        return Files.isSymbolicLink(path) ? LINKED_FILE : null;
    }
}
