package dev.ingestor.bench;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.ingestor.processing.ItemApplier;
import dev.ingestor.processing.ItemStore;
import dev.ingestor.validation.DeliveryAdviceValidator;
import dev.ingestor.validation.ItemLines;
import dev.ingestor.validation.RawRecord;
import dev.ingestor.validation.Validated;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a synchronous item batch holds on the heap while it waits for its statement, for the largest body
 * ({@code ingestor.http.max-json-size}, 10 MB) of items with many small fields (the worst case per byte: about a
 * million fields). Beside it, what the same batch held when every parsed record and its validation were kept. A
 * measurement, not a test: reported as megabytes retained after a full GC and as a ratio to the body's size.
 *
 * <p>Run with {@code ./mvnw -B -Pbenchmark test -Dtest=ItemBatchHeapBenchmark}.
 */
@Tag("benchmark")
class ItemBatchHeapBenchmark {

    @Test
    void heldPerBatch() {
        byte[] body = items(10_000_000);
        long parsed = retained(() -> {
            List<Object> held = new ArrayList<>();
            try (ItemLines records = ItemLines.open(new ByteArrayInputStream(body))) {
                records.forEachRemaining(raw -> held.add(DeliveryAdviceValidator.validate(raw)));
            }
            return held;
        });
        long kept = retained(() -> {
            List<Object> held = new ArrayList<>();
            try (ItemLines records = ItemLines.open(new ByteArrayInputStream(body))) {
                while (records.hasNext()) {
                    RawRecord raw = records.next();
                    Validated record = DeliveryAdviceValidator.validate(raw);
                    held.add(ItemStore.Entry.of("ACME", UUID.randomUUID(), null, record.advice(), raw.index(), false));
                    held.add(new ItemApplier.AppliedRecord(record.advice().sourceId(),
                            record.advice().sourceVersion(), null, null));
                }
            }
            return held;
        });
        System.out.printf("item batch of %,d bytes: parsed records kept %,d MB (%.1fx the body); entries and answers"
                + " kept %,d MB (%.1fx the body)%n", body.length, parsed / 1_000_000, (double) parsed / body.length,
                kept / 1_000_000, (double) kept / body.length);
    }

    /** Canonical item lines of about {@code size} bytes: items of 60 KB, each with thousands of one-digit fields. */
    private static byte[] items(int size) {
        StringBuilder lines = new StringBuilder();
        for (int item = 1; lines.length() < size; item++) {
            StringBuilder one = new StringBuilder("{\"delivery_date\":\"2026-12-01\",\"quantity\":1,\"sku\":\"S\"")
                    .append(",\"source_id\":\"I-").append(item).append('"');
            for (int field = 0; one.length() < 60_000; field++) {
                one.append(",\"k").append(field).append("\":0");
            }
            lines.append(one).append("}\n");
        }
        return lines.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static long retained(java.util.function.Supplier<List<Object>> hold) {
        System.gc();
        long before = used();
        List<Object> held = hold.get();
        System.gc();
        long after = used();
        if (held.isEmpty()) {
            throw new IllegalStateException("nothing held");
        }
        return after - before;
    }

    private static long used() {
        Runtime runtime = Runtime.getRuntime();
        return runtime.totalMemory() - runtime.freeMemory();
    }
}
