package dev.ingestor.source.file;

import java.util.ArrayList;
import java.util.List;

import com.jcraft.jsch.ChannelSftp;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.component.file.GenericFileFilter;
import org.apache.camel.component.file.remote.SftpRemoteFile;

/**
 * An SFTP route's filter: a remote entry that is a symbolic link is never taken (on the supplier's server it
 * may point anywhere the login can read). Nor is a file whose name holds a character the SFTP client reads as a
 * pattern ({@link #PATTERN_CHARACTERS}): JSch globs every remote path Camel gives it to read, stat, rename or
 * delete, so such a file is not found, or is not unique, or its move is refused at every poll, and its delete
 * removes every file the name matches ({@code price*.csv} deletes {@code price-2026-11-29.csv}, not yet taken).
 * A refused entry is left in place and counted for the poll ({@link LinkRefusals}). Filtered while the folder is
 * listed, refused entries do not count against the poll's limit of files, so a folder full of them cannot starve
 * the real files.
 *
 * <p>Without a done file and with a {@code min-age}, a file is also passed over until it has settled ({@link
 * SettledFiles}: the same size and time of change, listed by polls at least min-age apart by this instance's clock).
 * That is judged here rather than in the read lock: the listing already holds the size and time of change, so no
 * further look at the server is made, no file holds the poll thread while it waits, and a file not yet settled does
 * not count against the poll's limit of files, so a folder of files still being uploaded cannot starve the complete
 * ones. The read lock ({@link SftpClaimReadLock}) then refuses a file that changed between this listing and its take.
 * One filter per route, bound by {@link SupplierRouteInstaller}; its poll strategy ({@link SftpPollStrategy}) tells it
 * when each poll begins and ends.
 */
class RegularRemoteFilesOnly implements GenericFileFilter<Object>, FilesPassedOn.Filter {

    static final String LINKED_FILE = "the remote entry is a symbolic link; links are never followed";
    /**
     * The characters JSch's {@code ChannelSftp} (2.x) reads as a pattern in a remote path: {@code *} and {@code ?}
     * match other names, and {@code \} quotes the character after it and is dropped (Camel, before it, turns a
     * backslash into a folder separator). {@code [} is no pattern character there.
     */
    static final String PATTERN_CHARACTERS = "\\*?";

    private final LinkRefusals refusals;
    private final FilesPassedOn passedOn;

    RegularRemoteFilesOnly(LinkRefusals refusals, SettledFiles settled) {
        this.refusals = refusals;
        this.passedOn = new FilesPassedOn(settled, false);
    }

    @Override
    public boolean accept(GenericFile<Object> file) {
        String why = isLink(file) ? LINKED_FILE : patternName(file.getFileNameOnly());
        if (why != null) {
            refusals.refuse(folder(file), why, file.getFileNameOnly());
            return false;
        }
        if (file.isDirectory()) {
            return true;
        }
        return passedOn.pass(file);
    }

    @Override
    public FilesPassedOn passedOn() {
        return passedOn;
    }

    /**
     * The listed folder of {@code file}. Camel turns a backslash in a remote path into {@code /}, so its parent of
     * {@code inv\2026.csv} would be a folder {@code inv} that the server does not have: the path is cut before the
     * name as Camel wrote it.
     */
    private static String folder(GenericFile<Object> file) {
        String path = file.getAbsoluteFilePath();
        String name = file.getFileNameOnly();
        String written = name == null ? null : "/" + name.replace('\\', '/');
        if (path != null && written != null && path.endsWith(written)) {
            return path.substring(0, path.length() - written.length());
        }
        return String.valueOf(file.getParent());
    }

    /** Whether the listing showed the entry as a symbolic link (the listing does not follow links). */
    static boolean isLink(GenericFile<?> file) {
        Object entry = file.getFile();
        if (entry instanceof SftpRemoteFile<?> remote) {
            entry = remote.getRemoteFile();
        }
        return entry instanceof ChannelSftp.LsEntry lsEntry && lsEntry.getAttrs() != null
                && lsEntry.getAttrs().isLink();
    }

    /**
     * Why a remote file named {@code name} is not taken, naming the pattern characters it holds; null when it holds
     * none.
     */
    static String patternName(String name) {
        List<String> held = new ArrayList<>();
        for (char c : PATTERN_CHARACTERS.toCharArray()) {
            if (name != null && name.indexOf(c) >= 0) {
                held.add(String.valueOf(c));
            }
        }
        if (held.isEmpty()) {
            return null;
        }
        String last = held.remove(held.size() - 1);
        String chars = held.isEmpty() ? last : String.join(", ", held) + " and " + last;
        return "the file name holds " + chars + ", which the SFTP client reads as a pattern (* and ? match other"
                + " names, \\ quotes the next character), so the file cannot be read, moved or deleted by its name"
                + " (a delete would remove the other files it matches); it is left where it is for the supplier"
                + " to rename";
    }
}
