package dev.ingestor.bench;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** What a benchmark report says about where it ran: the code, the machine, the heap, the collector. */
final class BenchMachine {

    private BenchMachine() {
    }

    /**
     * What the idle application keeps on the heap: the largest classes of a live-object histogram (forces a full GC).
     */
    static void heapHistogram(BenchReport report) {
        try {
            String histogram = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            List<String> lines = histogram.lines().toList();
            report.line("idle heap, live objects after a full GC, largest classes (jcmd GC.class_histogram):");
            lines.stream().limit(8).forEach(l -> report.line("  " + l));
            lines.stream().filter(l -> l.trim().startsWith("Total")).findFirst().ifPresent(l -> report.line("  " + l));
        } catch (Exception e) {
            report.line("no heap histogram: %s", e);
        }
    }

    /** The commit measured, and whether the code under test (src/main, routes, pom.xml) differs from it. */
    static String codeVersion() {
        try {
            String head = run("git", "log", "-1", "--format=%h %cI %s");
            String dirty = run("git", "status", "--porcelain", "--", "src/main", "routes", "pom.xml");
            return head + (dirty.isBlank()
                    ? "; src/main, routes, pom.xml as committed"
                    : "; uncommitted changes in: " + dirty.replace('\n', ' '));
        } catch (Exception e) {
            return "unknown (" + e + ")";
        }
    }

    private static String run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).directory(new java.io.File(System.getProperty("basedir", ".")))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        p.waitFor(30, TimeUnit.SECONDS);
        return out.length() > 300 ? out.substring(0, 300) + "..." : out;
    }

    static String cpuModel() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
            return lines.filter(l -> l.startsWith("model name")).findFirst()
                    .map(l -> "CPU " + l.substring(l.indexOf(':') + 1).trim()).orElse("CPU model unknown");
        } catch (IOException e) {
            return "CPU model unknown";
        }
    }

    static String memTotal() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/meminfo"))) {
            return lines.filter(l -> l.startsWith("MemTotal")).findFirst().map(l -> l.replaceAll("\\s+", " "))
                    .orElse("");
        } catch (IOException e) {
            return "";
        }
    }

    /** Flushes everything staged so far, so the measured phase does not pay for the staging writes. */
    static double sync() throws Exception {
        long t = System.nanoTime();
        Process p = new ProcessBuilder("sync").inheritIO().start();
        p.waitFor(5, TimeUnit.MINUTES);
        return (System.nanoTime() - t) / 1e9;
    }

    static long gcCount() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
                .mapToLong(GarbageCollectorMXBean::getCollectionCount).sum();
    }

    static long gcMillis() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
                .mapToLong(GarbageCollectorMXBean::getCollectionTime).sum();
    }
}
