package dev.ingestor.source.http;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Run as a program in a JVM with a small heap: reads {@code args[0]} item batches through one {@link ItemBatchReader},
 * each of 150 items with a field of a long name of its own, as a supplier may send them one after another, and prints
 * {@link #READ_THEM_ALL}. A reader that kept the names of one body after it was read runs out of memory.
 */
final class ManyNamedBatches {

    static final String READ_THEM_ALL = "every batch read";

    private ManyNamedBatches() {
    }

    public static void main(String[] args) throws Exception {
        int batches = Integer.parseInt(args[0]);
        Path spool = Files.createTempDirectory("ingestor-names-");
        ItemBatchReader reader = new ItemBatchReader(1000, 65_536, spool);
        String padding = "n".repeat(40_000);
        for (int b = 0; b < batches; b++) {
            StringBuilder body = new StringBuilder("{\"items\": [");
            for (int i = 0; i < 150; i++) {
                body.append(i == 0 ? "" : ",").append("{\"source_id\": \"N-").append(i).append("\", \"")
                        .append(b).append('-').append(i).append(padding).append("\": 1}");
            }
            body.append("]}");
            ItemBatchReader.Batch batch = reader.read(
                    new ByteArrayInputStream(body.toString().getBytes(StandardCharsets.UTF_8)), "test");
            Files.delete(batch.jsonLines());
            System.gc();
            Runtime runtime = Runtime.getRuntime();
            System.out.println("batch " + b + " read, heap used " + (runtime.totalMemory() - runtime.freeMemory()));
        }
        System.out.println(READ_THEM_ALL);
    }
}
