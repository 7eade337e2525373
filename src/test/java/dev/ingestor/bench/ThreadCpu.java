package dev.ingestor.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/**
 * This JVM's CPU time split by who spent it, from /proc/self/task (Linux): the JIT's compiler threads, the
 * garbage collector and the VM's own threads, the in-process Kafka broker the benchmarks run against, and the
 * rest (the application: its Camel routes, the Kafka client, the JDBC pool; and the benchmark's own thread).
 * The JIT and the broker are not the product's cost per record: the one is paid once while a JVM warms up, the
 * other runs on another machine in production, and both share the two cores here.
 *
 * <p>A thread is known by its name as the kernel keeps it (the first 15 characters of the Java name). A thread
 * that ended between two readings is not counted: this is for long-lived threads, which these all are.
 */
final class ThreadCpu {

    /** ticks (utime + stime) by thread id, and each thread's group */
    private final Map<String, Long> ticks;
    private final Map<String, String> groups;

    private ThreadCpu(Map<String, Long> ticks, Map<String, String> groups) {
        this.ticks = ticks;
        this.groups = groups;
    }

    static ThreadCpu now() {
        Map<String, Long> ticks = new HashMap<>();
        Map<String, String> groups = new HashMap<>();
        Path tasks = Path.of("/proc/self/task");
        if (Files.isDirectory(tasks)) {
            try (DirectoryStream<Path> ids = Files.newDirectoryStream(tasks)) {
                for (Path id : ids) {
                    try {
                        String stat = Files.readString(id.resolve("stat"));
                        ticks.put(id.getFileName().toString(), MachineStats.statTicks(stat));
                        groups.put(id.getFileName().toString(), group(MachineStats.statName(stat)));
                    } catch (IOException | RuntimeException e) {
                        // the thread ended between listing and reading
                    }
                }
            } catch (IOException e) {
                // no split then
            }
        }
        return new ThreadCpu(ticks, groups);
    }

    /** The group of a thread by its kernel name (at most 15 characters of its Java name). */
    static String group(String name) {
        if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
            return "JIT";
        }
        if (name.startsWith("GC Thread") || name.startsWith("G1 ") || name.startsWith("VM ")) {
            return "GC+VM";
        }
        if (name.startsWith("kafka-producer-") || name.startsWith("kafka-admin-cli")) {
            return "application"; // the relay's Kafka client, the health check's
        }
        if (name.startsWith("data-plane-kafk") || name.startsWith("kafka-") || name.startsWith("quorum-control")
                || name.startsWith("broker-") || name.startsWith("controller-") || name.startsWith("ExpirationReap")
                || name.startsWith("LogDirFailureHa") || name.startsWith("group-coordina") || name.startsWith("raft-")
                || name.startsWith("share-coordina") || name.startsWith("transaction-")) {
            return "Kafka broker";
        }
        return "application";
    }

    /** CPU-seconds per group between two readings, in a fixed order. */
    static Map<String, Double> between(ThreadCpu before, ThreadCpu after) {
        Map<String, Double> seconds = new LinkedHashMap<>();
        for (String group : new String[] {"application", "Kafka broker", "JIT", "GC+VM"}) {
            seconds.put(group, 0.0);
        }
        after.ticks.forEach((id, t) -> {
            long d = t - before.ticks.getOrDefault(id, 0L);
            seconds.merge(after.groups.get(id), d / MachineStats.TICKS_PER_SECOND, Double::sum);
        });
        return seconds;
    }

    /** "this JVM by thread, µs per record: application 9.1, Kafka broker 4.3, JIT 13.0, GC+VM 1.2". */
    static String perUnit(ThreadCpu before, ThreadCpu after, long units, String unit) {
        StringJoiner out = new StringJoiner(", ", "this JVM by thread, CPU-µs per " + unit + ": ", "");
        between(before, after)
                .forEach((group, s) -> out.add(String.format(Locale.ROOT, "%s %.1f", group, s * 1e6 / units)));
        return out.toString();
    }
}
