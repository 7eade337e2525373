package dev.ingestor.web;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A request body read ahead of the application, at most {@code limit} bytes: small bodies stay in memory,
 * larger ones go to a temporary file that {@link #close} deletes. Reading ahead is what lets a body without
 * a declared length (chunked) or a compressed one be refused whole, before any of it reaches a route.
 */
final class SpooledBody implements AutoCloseable {

    private static final int IN_MEMORY = 64 * 1024;

    private final byte[] bytes;
    private final Path file;
    private final long size;

    private SpooledBody(byte[] bytes, Path file, long size) {
        this.bytes = bytes;
        this.file = file;
        this.size = size;
    }

    /** Thrown when the body holds more than the limit; nothing of it is kept. */
    static final class TooLarge extends IOException {
        TooLarge() {
            super("body over the limit", null);
        }
    }

    /** Reads {@code in} to its end; more than {@code limit} bytes throws {@link TooLarge}. */
    static SpooledBody read(InputStream in, long limit, Path spoolDir) throws IOException {
        ByteArrayOutputStream memory = new ByteArrayOutputStream(8192);
        OutputStream out = memory;
        Path file = null;
        long total = 0;
        byte[] buffer = new byte[16 * 1024];
        try {
            int n;
            while ((n = in.read(buffer, 0, (int) Math.min(buffer.length, limit + 1 - total))) > 0) {
                total += n;
                if (total > limit) {
                    throw new TooLarge();
                }
                if (file == null && total > IN_MEMORY) {
                    Files.createDirectories(spoolDir);
                    file = Files.createTempFile(spoolDir, "body-", ".part");
                    out = Files.newOutputStream(file);
                    memory.writeTo(out);
                    memory = null;
                }
                out.write(buffer, 0, n);
            }
            out.close();
            return new SpooledBody(file == null ? memory.toByteArray() : null, file, total);
        } catch (IOException | RuntimeException e) {
            out.close();
            if (file != null) {
                Files.deleteIfExists(file);
            }
            throw e;
        }
    }

    long size() {
        return size;
    }

    InputStream open() throws IOException {
        return file == null ? new ByteArrayInputStream(bytes) : Files.newInputStream(file);
    }

    @Override
    public void close() {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException("cannot delete the read-ahead body " + file, e);
            }
        }
    }
}
