package dev.ingestor.source.file;

import com.jcraft.jsch.ChannelSftp;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.component.file.GenericFileFilter;
import org.apache.camel.component.file.remote.SftpRemoteFile;
import org.springframework.stereotype.Component;

/**
 * The SFTP routes' filter: a remote entry that is a symbolic link is never taken (on the supplier's server it
 * may point anywhere the login can read). It is left in place and counted for the poll ({@link LinkRefusals}).
 * Filtered while the folder is listed, links do not count against the poll's limit of files, so a folder full
 * of them cannot starve the real files.
 */
@Component("regularRemoteFilesOnly")
class RegularRemoteFilesOnly implements GenericFileFilter<Object> {

    static final String LINKED_FILE = "the remote entry is a symbolic link; links are never followed";

    private final LinkRefusals refusals;

    public RegularRemoteFilesOnly(LinkRefusals refusals) {
        this.refusals = refusals;
    }

    @Override
    public boolean accept(GenericFile<Object> file) {
        if (isLink(file)) {
            refusals.refuse(String.valueOf(file.getParent()), LINKED_FILE, file.getFileNameOnly());
            return false;
        }
        return true;
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
}
