package dev.ingestor.validation;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.ingestor.config.RecordFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReadBuffersTest {

    @Test
    void aFileGetsBuffersOfItsSizeBetweenTheLeastAndTheMost(@TempDir Path dir) throws Exception {
        int most = 256 * 1024;
        for (int[] sizeAndBuffer : new int[][] {{100, ReadBuffers.LEAST}, {100_000, 100_000}, {1_000_000, most}}) {
            Path file = Files.write(dir.resolve("f-" + sizeAndBuffer[0]), new byte[sizeAndBuffer[0]]);
            try (InputStream in = Files.newInputStream(file)) {
                assertThat(ReadBuffers.size(in, most)).as("a file of %d bytes", sizeAndBuffer[0])
                        .isEqualTo(sizeAndBuffer[1]);
            }
        }
        // a stream that does not know how much it holds (a decompressor says 1) gets the most
        assertThat(ReadBuffers.size(unknowing(new byte[100]), most)).isEqualTo(most);
    }

    /**
     * The same file read with buffers of its size and with the largest: the same records, where quoted values with
     * line breaks and escaped quotes cross the smaller buffers' ends.
     */
    @Test
    void recordsAreTheSameWhateverTheBuffers() throws Exception {
        StringBuilder csv = new StringBuilder("source_id,source_version,sku,quantity,delivery_date,note\n");
        for (int i = 0; csv.length() < 12_000; i++) {
            csv.append("S-").append(i).append(",1,SKU,").append(i % 90 + 1).append(",2026-12-01,\"a \"\"quoted\"\"")
                    .append(i % 3 == 0 ? "\nline" : "").append(" note ").append("x".repeat(i % 40)).append("\"\n");
        }
        byte[] bytes = csv.toString().getBytes(StandardCharsets.UTF_8);
        for (RecordFormat format : List.of(RecordFormat.CSV)) {
            List<RawRecord> sized = read(format, new ByteArrayInputStream(bytes));
            List<RawRecord> largest = read(format, unknowing(bytes));
            assertThat(sized).hasSizeGreaterThan(100).isEqualTo(largest);
            assertThat(sized.get(3).fields().get("note")).isEqualTo("a \"quoted\"\nline note xxx");
        }
        StringBuilder json = new StringBuilder();
        for (int i = 0; json.length() < 12_000; i++) {
            json.append("{\"source_id\": \"S-").append(i).append("\", \"sku\": \"SKU\", \"quantity\": 1,")
                    .append(" \"delivery_date\": \"2026-12-01\", \"note\": \"").append("y".repeat(i % 50))
                    .append("\"}\n");
        }
        bytes = json.toString().getBytes(StandardCharsets.UTF_8);
        assertThat(read(RecordFormat.JSON, new ByteArrayInputStream(bytes))).hasSizeGreaterThan(100)
                .isEqualTo(read(RecordFormat.JSON, unknowing(bytes)));
    }

    private static List<RawRecord> read(RecordFormat format, InputStream in) throws Exception {
        List<RawRecord> records = new ArrayList<>();
        try (RecordReader reader = RecordReader.open(format, in, StandardCharsets.UTF_8, ',')) {
            reader.forEachRemaining(records::add);
        }
        return records;
    }

    private static InputStream unknowing(byte[] bytes) {
        return new FilterInputStream(new ByteArrayInputStream(bytes)) {
            @Override
            public int available() {
                return 1;
            }
        };
    }
}
