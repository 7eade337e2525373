package dev.ingestor.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/** Files for the benchmarks: work folders, counting what is in a folder, one large file of known bytes. */
final class BenchFiles {

    static final long MIB = 1024L * 1024;

    private BenchFiles() {
    }

    static double mbPerSecond(long bytes, long nanos) {
        return bytes / 1e6 / (nanos / 1e9);
    }

    /** Regular files directly in {@code dir}, not sorted, without building a list. */
    static int countFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        int n = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                if (Files.isRegularFile(p)) {
                    n++;
                }
            }
        }
        return n;
    }

    static Path createWork(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteTree(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> all = Files.walk(path)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    static void writeLargeFile(Path file, long size) throws IOException {
        byte[] chunk = new byte[(int) MIB];
        new SplittableRandom(20_260_101L).nextBytes(chunk);
        ByteBuffer buffer = ByteBuffer.wrap(chunk);
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            for (long i = 0; i < size / MIB; i++) {
                // every chunk different: its number in the first bytes
                buffer.clear();
                buffer.putLong(0, i);
                buffer.putLong(8, i * 0x9E3779B97F4A7C15L);
                while (buffer.hasRemaining()) {
                    out.write(buffer);
                }
            }
        }
    }

    static void deleteLarge(Path path) throws IOException {
        if (path != null) {
            Files.deleteIfExists(path);
        }
    }
}
