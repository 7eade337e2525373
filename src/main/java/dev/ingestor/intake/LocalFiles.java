package dev.ingestor.intake;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Opening a dropped file as what it is: a regular file in a real folder. A symbolic link in the inbox would
 * otherwise hand intake whatever it points at (another supplier's file, a system file), so links are never
 * followed: neither the file nor its folder may be one.
 */
final class LocalFiles {

    private LocalFiles() {
    }

    /**
     * Opens {@code file} without following links; a link or anything but a regular file is rejected. The stream
     * checks at its end that the file did not change while it was read ({@link LocalFileInput}).
     */
    static LocalFileInput openRegularFile(Path file) throws IOException {
        return openRegularFile(file, null);
    }

    /**
     * As {@link #openRegularFile(Path)}; with {@code settledAs}, the size and time of change its route's listing found
     * the file settled in, a file that no longer has them is not opened ({@link FileChangedSinceSettledException}).
     * A file no longer there is not this instance's to answer ({@link FileGoneException}).
     */
    static LocalFileInput openRegularFile(Path file, FileState settledAs) throws IOException {
        Path folder = file.getParent();
        if (folder != null && Files.isSymbolicLink(folder)) {
            throw new RejectedDropException("file=" + FileNameRule.printable(file.toString()),
                    "the folder " + FileNameRule.printable(folder.toString())
                            + " is a symbolic link; links are never followed");
        }
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new FileGoneException(FileNameRule.printable(String.valueOf(file.getFileName())));
        }
        if (!attributes.isRegularFile()) {
            throw notRegular(file, attributes);
        }
        FileState opened = FileState.of(attributes);
        if (settledAs != null && !settledAs.sameSizeAndTime(opened)) {
            throw new FileChangedSinceSettledException(FileNameRule.printable(String.valueOf(file.getFileName())),
                    settledAs, opened);
        }
        try {
            // O_NOFOLLOW: a link put in its place since the check above is refused by the system
            return new LocalFileInput(Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS), file, opened);
        } catch (FileSystemException e) {
            BasicFileAttributes now = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!now.isRegularFile()) {
                throw notRegular(file, now);
            }
            throw e;
        }
    }

    private static RejectedDropException notRegular(Path file, BasicFileAttributes attributes) {
        String what = attributes.isSymbolicLink()
                ? "a symbolic link; links are never followed"
                : attributes.isDirectory() ? "a folder" : "not a regular file";
        return new RejectedDropException("file=" + FileNameRule.printable(file.getFileName().toString()),
                "the file is " + what);
    }
}
