package dev.ingestor.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * CPU accounting around a measured phase, from /proc (Linux): the whole machine's user/system/iowait/idle
 * split, this JVM's CPU time, and the CPU time of the PostgreSQL processes. Where /proc is not there the
 * figures are simply absent.
 */
final class MachineStats {

    /** USER_HZ; 100 on every Linux this runs on in practice. */
    static final double TICKS_PER_SECOND = 100.0;

    final long wallNanos;
    /** user, nice, system, idle, iowait, irq, softirq, steal from the "cpu" line of /proc/stat; null when absent. */
    final long[] cpu;
    final long jvmCpuNanos;
    final long postgresTicks;
    final String loadAverage;
    /** The JIT compilers' time so far (all compiler threads), ms; -1 when the JVM does not say. */
    final long jitMillis;

    private MachineStats(long wallNanos, long[] cpu, long jvmCpuNanos, long postgresTicks, String loadAverage,
            long jitMillis) {
        this.wallNanos = wallNanos;
        this.cpu = cpu;
        this.jvmCpuNanos = jvmCpuNanos;
        this.postgresTicks = postgresTicks;
        this.loadAverage = loadAverage;
        this.jitMillis = jitMillis;
    }

    static MachineStats now() {
        return new MachineStats(System.nanoTime(), procStat(), jvmCpu(), postgresTicks(), loadAverage(), jitMillis());
    }

    /**
     * The JIT's compiling time between two readings, as a share of the wall time: on two cores the compiler threads
     * compete with the requests, and a phase measured while hot methods still wait for their optimized code says
     * more about the JIT's queue than about the code.
     */
    static double jitShare(MachineStats before, MachineStats after) {
        double wall = (after.wallNanos - before.wallNanos) / 1e6;
        return before.jitMillis < 0 || wall <= 0 ? 0 : (after.jitMillis - before.jitMillis) / wall;
    }

    private static long jitMillis() {
        var jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
    }

    /** One line describing what the machine did between {@code before} and {@code after}. */
    static String between(MachineStats before, MachineStats after) {
        double wall = (after.wallNanos - before.wallNanos) / 1e9;
        StringBuilder out = new StringBuilder();
        if (before.cpu != null && after.cpu != null) {
            long[] d = new long[8];
            long total = 0;
            for (int i = 0; i < 8; i++) {
                d[i] = after.cpu[i] - before.cpu[i];
                total += d[i];
            }
            if (total > 0) {
                out.append(String.format(Locale.ROOT,
                        "machine CPU (all cores): user %.0f%%, system %.0f%%, iowait %.0f%%, idle %.0f%%, steal %.0f%%; ",
                        pct(d[0] + d[1], total), pct(d[2] + d[5] + d[6], total), pct(d[4], total), pct(d[3], total),
                        pct(d[7], total)));
            }
        }
        double jvm = (after.jvmCpuNanos - before.jvmCpuNanos) / 1e9;
        out.append(String.format(Locale.ROOT, "this JVM %.1f CPU-s (%.2f cores avg)", jvm, wall > 0 ? jvm / wall : 0));
        double pg = 0;
        if (before.postgresTicks >= 0 && after.postgresTicks >= 0) {
            pg = (after.postgresTicks - before.postgresTicks) / TICKS_PER_SECOND;
            out.append(String.format(Locale.ROOT, ", postgres processes %.1f CPU-s (%.2f cores avg)", pg,
                    wall > 0 ? pg / wall : 0));
        }
        if (before.cpu != null && after.cpu != null && wall > 0) {
            long busy = 0;
            for (int i : new int[] {0, 1, 2, 5, 6}) {
                busy += after.cpu[i] - before.cpu[i];
            }
            double busyCores = busy / TICKS_PER_SECOND / wall;
            out.append(String.format(Locale.ROOT, ", everything else %.2f cores avg (machine busy %.2f cores)",
                    Math.max(0, busyCores - jvm / wall - pg / wall), busyCores));
        }
        if (before.jitMillis >= 0) {
            out.append(String.format(Locale.ROOT, "; JIT compiling %.1f s (%.0f%% of the wall time)",
                    (after.jitMillis - before.jitMillis) / 1e3, 100 * jitShare(before, after)));
        }
        out.append("; load average before ").append(before.loadAverage).append(", after ").append(after.loadAverage);
        return out.toString();
    }

    /** The name in a /proc stat line (a process's, or a thread's: at most 15 characters). */
    static String statName(String stat) {
        return stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    }

    /** utime + stime of a /proc stat line, in ticks: fields 14 and 15, which are 11 and 12 after the ") ". */
    static long statTicks(String stat) {
        String[] rest = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(rest[11]) + Long.parseLong(rest[12]);
    }

    private static double pct(long part, long total) {
        return 100.0 * part / total;
    }

    private static long[] procStat() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/stat"));
            String[] f = lines.get(0).trim().split("\\s+");
            long[] v = new long[8];
            for (int i = 0; i < 8; i++) {
                v[i] = Long.parseLong(f[i + 1]);
            }
            return v;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static long jvmCpu() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return 0;
    }

    /** utime + stime of every process named postgres, in ticks; -1 without /proc. */
    private static long postgresTicks() {
        Path proc = Path.of("/proc");
        if (!Files.isDirectory(proc)) {
            return -1;
        }
        long ticks = 0;
        try (DirectoryStream<Path> pids = Files.newDirectoryStream(proc,
                p -> p.getFileName().toString().matches("\\d+"))) {
            for (Path pid : pids) {
                try {
                    String stat = Files.readString(pid.resolve("stat"));
                    if (statName(stat).equals("postgres")) {
                        ticks += statTicks(stat);
                    }
                } catch (IOException | RuntimeException e) {
                    // the process went away between listing and reading
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return ticks;
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + "/" + f[1] + "/" + f[2];
        } catch (IOException | RuntimeException e) {
            return "n/a";
        }
    }
}
