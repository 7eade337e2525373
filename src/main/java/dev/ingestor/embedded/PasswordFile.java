package dev.ingestor.embedded;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Set;

/**
 * A generated password kept in a file only its owner can read or write ({@code rw-------}). The file is
 * written whole under a temporary name, synced, and then renamed, so a crash never leaves a half-written password.
 */
final class PasswordFile {

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final SecureRandom RANDOM = new SecureRandom();

    private PasswordFile() {
    }

    /** 32 random bytes, base64url: letters, digits, '-' and '_' only, so safe inside a quoted SQL literal. */
    static String generate() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    static void write(Path file, String password) throws IOException {
        Path temp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.deleteIfExists(temp);
        if (posix()) {
            Files.createFile(temp, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        }
        Files.writeString(temp, password + "\n");
        // on disk before its name is: a power cut after the rename must not leave an empty file, whose password no
        // one knows any more
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
            channel.force(true);
        }
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        UnfinishedFirstStart.syncFolder(file.getParent());
    }

    /** The password; a file others could read is made owner-only again first. */
    static String read(Path file) throws IOException {
        if (posix() && !Files.getPosixFilePermissions(file).equals(OWNER_ONLY)) {
            Files.setPosixFilePermissions(file, OWNER_ONLY);
        }
        return Files.readAllLines(file).get(0).trim();
    }

    private static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }
}
