package dev.ingestor.embedded;

import java.nio.file.Path;

/** Run in a child JVM: tells whether another process holds the data folder's lock ({@link DataFolderLock}). */
public final class LockProbe {

    static final String HELD = "LOCK-HELD";
    static final String FREE = "LOCK-FREE";

    private LockProbe() {
    }

    public static void main(String[] args) throws Exception {
        try (DataFolderLock lock = DataFolderLock.take(Path.of(args[0]))) {
            System.out.println(FREE);
        } catch (IllegalStateException held) {
            System.out.println(HELD);
        }
    }
}
