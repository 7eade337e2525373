package dev.ingestor.intake;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * What says a dropped file is still the one that was read: its size, its time of change and its identity on the
 * file system (device and inode where the system has them), as it was opened. A supplier that writes the file again
 * in place, or renames another over it, changes one of them.
 */
public record FileState(long size, long modifiedMillis, Object fileKey) {

    static FileState of(BasicFileAttributes attributes) {
        return new FileState(attributes.size(), attributes.lastModifiedTime().toMillis(), attributes.fileKey());
    }

    /** Whether {@code other} has this size and time of change (the identity is not compared). */
    public boolean sameSizeAndTime(FileState other) {
        return size == other.size && modifiedMillis == other.modifiedMillis;
    }

    /** The state of {@code file} now, its link not followed; null when it is gone. */
    public static FileState now(Path file) {
        try {
            return of(Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
        } catch (IOException e) {
            return null;
        }
    }
}
