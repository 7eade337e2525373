package dev.ingestor.bench;

/** One measured batch of small files dropped into the inbox: when it began, when each share of it was committed. */
final class SmallFilePhase {

    final String title;
    final int n;
    final long moveStart;
    final long allIn;
    long end;
    boolean complete;
    long first;
    /** The JIT's compiling time during the phase as a share of its wall time. */
    double jitShare;
    final long[] thresholds = new long[4];
    private static final double[] FRACTIONS = {0.1, 0.5, 0.9, 1.0};

    SmallFilePhase(String title, int n, long moveStart, long allIn) {
        this.title = title;
        this.n = n;
        this.moveStart = moveStart;
        this.allIn = allIn;
    }

    void observe(long progress, long now) {
        if (first == 0 && progress > 0) {
            first = now;
        }
        for (int i = 0; i < FRACTIONS.length; i++) {
            if (thresholds[i] == 0 && progress >= Math.ceil(FRACTIONS[i] * n)) {
                thresholds[i] = now;
            }
        }
    }

    double seconds() {
        return (end - allIn) / 1e9;
    }

    double filesPerSecond() {
        return n / seconds();
    }

    /** Seconds after all files were in; negative when reached while files were still being moved in. */
    double firstSeconds() {
        return first == 0 ? Double.NaN : (first - allIn) / 1e9;
    }

    double at(double fraction) {
        for (int i = 0; i < FRACTIONS.length; i++) {
            if (FRACTIONS[i] == fraction) {
                return thresholds[i] == 0 ? Double.NaN : (thresholds[i] - allIn) / 1e9;
            }
        }
        return Double.NaN;
    }

    double steadyFilesPerSecond() {
        if (thresholds[0] == 0 || thresholds[2] == 0 || thresholds[2] == thresholds[0]) {
            return Double.NaN;
        }
        return (Math.ceil(0.9 * n) - Math.ceil(0.1 * n)) / ((thresholds[2] - thresholds[0]) / 1e9);
    }
}
