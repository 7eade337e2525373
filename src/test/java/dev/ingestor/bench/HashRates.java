package dev.ingestor.bench;

import static dev.ingestor.bench.BenchFiles.MIB;
import static dev.ingestor.bench.BenchFiles.mbPerSecond;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.SplittableRandom;
import java.util.function.BiConsumer;

/**
 * SHA-256 alone, next to the large file's end-to-end rate: from the page cache, from the device (O_DIRECT)
 * and from memory, so a report shows how much of the intake's time the hash is.
 */
final class HashRates {

    private static final int HASH_BUFFER = 256 * 1024;

    private HashRates() {
    }

    /** SHA-256 alone, to compare with the end-to-end rate: from disk (cached and not) and from memory. */
    static void report(BenchReport report, Path file, long size, String expectedSha, BiConsumer<Boolean, String> check)
            throws Exception {
        report.line("raw SHA-256 (java.security.MessageDigest, provider %s), %d KiB buffers:",
                MessageDigest.getInstance("SHA-256").getProvider().getName(), HASH_BUFFER / 1024);

        byte[] buffer = new byte[HASH_BUFFER];
        // a) the file as it is now: just ingested, so very likely still in the page cache
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        long t = System.nanoTime();
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer wrapped = ByteBuffer.wrap(buffer);
            int n;
            while ((n = in.read(wrapped.clear())) != -1) {
                sha.update(buffer, 0, n);
            }
        }
        long cachedHash = System.nanoTime() - t;
        String digest = HexFormat.of().formatHex(sha.digest());
        check.accept(digest.equals(expectedSha),
                "large file: SHA-256 of the file " + digest + " != job key " + expectedSha);
        report.line("  file read + hash (page cache warm, file just ingested): %.1f MB/s (%.2f s)%s",
                mbPerSecond(size, cachedHash), cachedHash / 1e9,
                digest.equals(expectedSha) ? ", digest = job key" : "");

        t = System.nanoTime();
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer wrapped = ByteBuffer.wrap(buffer);
            while (in.read(wrapped.clear()) != -1) {
                // read only
            }
        }
        long cachedRead = System.nanoTime() - t;
        report.line("  file read only (page cache warm): %.1f MB/s", mbPerSecond(size, cachedRead));

        // b) bypassing the page cache (O_DIRECT), i.e. from the device
        try {
            long direct = directRead(file, true, buffer);
            report.line("  file read + hash with O_DIRECT (from the device, no page cache): %.1f MB/s",
                    mbPerSecond(size, direct));
            long directOnly = directRead(file, false, buffer);
            report.line("  file read only with O_DIRECT: %.1f MB/s", mbPerSecond(size, directOnly));
        } catch (IOException | UnsupportedOperationException e) {
            report.line("  O_DIRECT read not possible here: %s", e);
        }

        // c) from memory: one 256 KiB buffer hashed over and over (CPU only)
        new SplittableRandom(7).nextBytes(buffer);
        MessageDigest memory = MessageDigest.getInstance("SHA-256");
        for (int i = 0; i < 2048; i++) {
            memory.update(buffer);
        }
        memory.digest();
        long rounds = size / HASH_BUFFER;
        t = System.nanoTime();
        for (long i = 0; i < rounds; i++) {
            memory.update(buffer);
        }
        memory.digest();
        long inMemory = System.nanoTime() - t;
        report.line("  in-memory 256 KiB buffer hashed %d times (%d MiB): %.1f MB/s (%.2f s)",
                rounds, size / MIB, mbPerSecond(size, inMemory), inMemory / 1e9);
    }

    private static long directRead(Path file, boolean hash, byte[] heap) throws Exception {
        int align = (int) Math.max(4096, Files.getFileStore(file).getBlockSize());
        ByteBuffer direct = ByteBuffer.allocateDirect(HASH_BUFFER + align).alignedSlice(align);
        direct.limit(HASH_BUFFER);
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        long t = System.nanoTime();
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ,
                com.sun.nio.file.ExtendedOpenOption.DIRECT)) {
            int n;
            while ((n = in.read(direct.clear().limit(HASH_BUFFER))) > 0) {
                if (hash) {
                    direct.flip();
                    direct.get(heap, 0, n);
                    sha.update(heap, 0, n);
                }
            }
        }
        sha.digest();
        return System.nanoTime() - t;
    }
}
