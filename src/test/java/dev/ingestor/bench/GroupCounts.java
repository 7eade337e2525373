package dev.ingestor.bench;

import java.util.Locale;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * How the small files of a run travelled: in groups that completed together, or alone. Read from the meters the
 * application keeps ({@code ingestor.pipeline.groups}, {@code ingestor.pipeline.group.files}), before and after.
 */
record GroupCounts(double groups, double files, double alone) {

    static GroupCounts now(MeterRegistry registry) {
        return new GroupCounts(count(registry, "ingestor.pipeline.groups", "completed"),
                count(registry, "ingestor.pipeline.group.files", "completed"),
                count(registry, "ingestor.pipeline.group.files", "alone"));
    }

    private static double count(MeterRegistry registry, String name, String outcome) {
        Counter counter = registry.find(name).tag("outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    /** What happened between {@code before} and this, for {@code jobs} jobs in all. */
    String since(GroupCounts before, long jobs) {
        double g = groups - before.groups;
        double f = files - before.files;
        return String.format(Locale.ROOT,
                "%,.0f of %,d jobs in %,.0f groups (%.1f files per group), %,.0f in groups done"
                        + " again one at a time",
                f, jobs, g, g > 0 ? f / g : 0.0, alone - before.alone);
    }
}
