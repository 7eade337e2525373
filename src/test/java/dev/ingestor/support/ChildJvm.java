package dev.ingestor.support;

import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A JVM a test starts beside its own, on the same java binary and class path: for what only a process of its own
 * shows, such as a small heap that must not run out, the app started as an operator starts it, or a JVM that must
 * end (or go on) after a fault. Standard error goes with standard output: to a file, to the test JVM's own, or, by
 * default, to the {@link Process} for the test to read.
 */
public final class ChildJvm {

    private final String mainClass;
    private final List<String> options = new ArrayList<>();
    private final List<String> arguments = new ArrayList<>();
    private final Map<String, String> environment = new LinkedHashMap<>();
    private Path directory;
    private Redirect output = Redirect.PIPE;

    private ChildJvm(String mainClass) {
        this.mainClass = mainClass;
    }

    /** A JVM that runs the {@code main} of {@code mainClass}. */
    public static ChildJvm of(Class<?> mainClass) {
        return new ChildJvm(mainClass.getName());
    }

    /** JVM options, before the main class: {@code -Xmx48m}, say. */
    public ChildJvm options(String... options) {
        this.options.addAll(List.of(options));
        return this;
    }

    /** Arguments of the main class. */
    public ChildJvm arguments(String... arguments) {
        return arguments(List.of(arguments));
    }

    public ChildJvm arguments(List<String> arguments) {
        this.arguments.addAll(arguments);
        return this;
    }

    /** A variable added to the environment the JVM inherits from the test JVM. */
    public ChildJvm environment(String name, String value) {
        environment.put(name, value);
        return this;
    }

    /** The JVM's working folder; the test JVM's when not given. */
    public ChildJvm directory(Path directory) {
        this.directory = directory;
        return this;
    }

    /** The JVM's output written to {@code file}, as the test reads it while the JVM runs. */
    public ChildJvm outputTo(Path file) {
        output = Redirect.to(file.toFile());
        return this;
    }

    /** The JVM's output written with the test JVM's own. */
    public ChildJvm inheritOutput() {
        output = Redirect.INHERIT;
        return this;
    }

    /** The java binary of the test JVM, its class path, the options, the main class and its arguments. */
    public List<String> command() {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(arguments);
        return command;
    }

    public Process start() throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command()).redirectErrorStream(true).redirectOutput(output);
        builder.environment().putAll(environment);
        if (directory != null) {
            builder.directory(directory.toFile());
        }
        return builder.start();
    }

    /**
     * Starts the JVM and waits for its end, at most {@code timeout}; one still running then is killed. Its output goes
     * to a temporary file (in place of any {@link #outputTo} or {@link #inheritOutput}), read once the JVM is gone, so
     * that a JVM that never ends cannot keep the test waiting on its output.
     */
    public Run run(Duration timeout) throws IOException, InterruptedException {
        Path file = Files.createTempFile("child-jvm-", ".out");
        try {
            Process process = outputTo(file).start();
            boolean ended = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!ended) {
                process.destroyForcibly().waitFor();
            }
            return new Run(ended, process.exitValue(), new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * What {@link #run} saw: whether the JVM ended within the timeout, its exit code (that of the kill if it did not),
     * and its output.
     */
    public record Run(boolean ended, int exitCode, String output) {
    }
}
