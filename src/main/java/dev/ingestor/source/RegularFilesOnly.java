package dev.ingestor.source;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.apache.camel.component.file.GenericFile;
import org.apache.camel.component.file.GenericFileFilter;
import org.springframework.stereotype.Component;

/**
 * The file-drop routes' filter: only regular files in a real supplier folder whose outcome folders are real
 * folders. Camel's file consumer follows symbolic links, so without this a link in the inbox would feed intake
 * whatever it points at, and a linked {@code .done/} would move files wherever it points. A refused path is
 * left in place and logged once ({@link LinkRefusals}).
 */
@Component("regularFilesOnly")
public class RegularFilesOnly implements GenericFileFilter<File> {

    /** Where a file goes after intake (see the file-drop route's move options). */
    public static final List<String> OUTCOME_FOLDERS = List.of(".done", ".duplicate", ".rejected", ".failed");

    private final LinkRefusals refusals;

    public RegularFilesOnly(LinkRefusals refusals) {
        this.refusals = refusals;
    }

    @Override
    public boolean accept(GenericFile<File> file) {
        if (file.isDirectory()) {
            return false;
        }
        Path path = file.getFile().toPath().toAbsolutePath();
        Path folder = path.getParent();
        return real(folder, "the supplier folder is a symbolic link; no file in it is taken until it is a real folder")
                && outcomeFoldersReal(folder)
                && real(path, "the file is a symbolic link; links are never followed");
    }

    private boolean outcomeFoldersReal(Path folder) {
        boolean real = true;
        for (String outcome : OUTCOME_FOLDERS) {
            real &= real(folder.resolve(outcome), "the outcome folder is a symbolic link; no file of this supplier is"
                    + " taken until it is a real folder, so none is moved through it");
        }
        return real;
    }

    private boolean real(Path path, String why) {
        String what = path.toString();
        if (Files.isSymbolicLink(path)) {
            refusals.refuse(what, why);
            return false;
        }
        refusals.forget(what);
        return true;
    }
}
