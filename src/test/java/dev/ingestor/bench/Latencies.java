package dev.ingestor.bench;

import java.util.Arrays;
import java.util.Locale;

/** Latencies of one kind of call, in milliseconds: how many, p50, p99, the largest, and the failures among them. */
record Latencies(int calls, double p50, double p99, double max, long errors) {

    static Latencies of(long[] nanos, long errors) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return new Latencies(sorted.length, percentile(sorted, 0.50), percentile(sorted, 0.99),
                sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1] / 1e6, errors);
    }

    static Latencies one(long nanos, boolean failed) {
        return of(new long[] {nanos}, failed ? 1 : 0);
    }

    long p50Nanos() {
        return Math.round(p50 * 1e6);
    }

    private static double percentile(long[] sorted, double p) {
        return sorted.length == 0
                ? Double.NaN
                : sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))] / 1e6;
    }

    @Override
    public String toString() {
        return calls == 1
                ? String.format(Locale.ROOT, "%.1f ms%s", p50, errors > 0 ? " (FAILED)" : "")
                : String.format(Locale.ROOT, "p50 %.1f ms, p99 %.1f ms, max %.1f ms (%d calls%s)", p50, p99, max, calls,
                        errors > 0 ? ", " + errors + " non-2xx" : "");
    }
}
