package dev.ingestor.validation;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import dev.ingestor.config.RecordFormat;
import dev.ingestor.intake.RawFileReadException;
import dev.ingestor.intake.RawStore;
import dev.ingestor.job.ContentKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stored file whose storage fails while it is read (a disk, a shared volume) is the storage's failure, which a
 * stage redelivers, never a file that cannot be read as its format, which validation rejects for good: every reader
 * passes the raw store's {@link RawFileReadException} on as it is, whether the failure comes at the first byte, in
 * the header or among the records.
 */
class StorageReadFailureTest {

    @TempDir
    Path root;

    private static final ContentKey KEY = new ContentKey("ACME", "ab".repeat(32));

    /** A raw store whose files fail with EIO after {@code failAfter} bytes of {@code bytes}. */
    private InputStream failingAfter(byte[] bytes, int failAfter) {
        return new RawStore(root, false) {
            @Override
            protected InputStream openFile(Path file) {
                return new ByteArrayInputStream(bytes) {
                    @Override
                    public synchronized int read(byte[] b, int off, int len) {
                        if (pos >= failAfter) {
                            throw sneaky(new IOException("Input/output error"));
                        }
                        return super.read(b, off, Math.min(len, failAfter - pos));
                    }

                    @Override
                    public synchronized int read() {
                        if (pos >= failAfter) {
                            throw sneaky(new IOException("Input/output error"));
                        }
                        return super.read();
                    }
                };
            }
        }.open(KEY);
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> RuntimeException sneaky(Throwable e) throws E {
        throw (E) e;
    }

    @Test
    void aFailingStorageIsNeverAnUnreadableFileInAnyShape() {
        StringBuilder csv = new StringBuilder("source_id,source_version,sku,quantity,delivery_date\n");
        StringBuilder array = new StringBuilder("[");
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 2000; i++) {
            csv.append("S-").append(i).append(",1,SKU,1,2026-12-01\n");
            String record = "{\"source_id\": \"S-" + i + "\", \"source_version\": 1, \"sku\": \"SKU\", \"quantity\": 1,"
                    + " \"delivery_date\": \"2026-12-01\"}";
            array.append(i == 0 ? "" : ",\n").append(record);
            lines.append(record).append('\n');
        }
        array.append("]");
        record Shape(RecordFormat format, String text) {
        }
        for (Shape shape : new Shape[] {new Shape(RecordFormat.CSV, csv.toString()),
                new Shape(RecordFormat.JSON, array.toString()), new Shape(RecordFormat.JSON, lines.toString())}) {
            byte[] bytes = shape.text().getBytes(StandardCharsets.UTF_8);
            for (int failAfter : new int[] {0, 10, 60, bytes.length / 2, bytes.length - 5}) {
                assertThatThrownBy(() -> {
                    try (RecordReader reader = RecordReader.open(shape.format(), failingAfter(bytes, failAfter),
                            StandardCharsets.UTF_8, ',')) {
                        reader.forEachRemaining(r -> {});
                    }
                }).as(shape.format() + " " + shape.text().substring(0, 1) + " failing after " + failAfter)
                        .isInstanceOf(RawFileReadException.class).hasMessageContaining("Input/output error")
                        .hasMessageContaining("ACME:");
            }
        }
    }
}
