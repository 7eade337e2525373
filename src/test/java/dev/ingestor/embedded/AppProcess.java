package dev.ingestor.embedded;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import dev.ingestor.IngestorApplication;
import dev.ingestor.support.ChildJvm;

/**
 * The app in a JVM of its own, as an operator starts it, its output (standard and error) in a file: for what only a
 * whole process shows, such as two starts on one data folder or a JVM that must end after a failed start.
 */
final class AppProcess implements AutoCloseable {

    static final String STARTED = "Started IngestorApplication";

    private final Process process;
    private final Path output;

    private AppProcess(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    /** {@code IngestorApplication} with {@code args}, on the test JVM's class path. */
    static AppProcess start(Path output, String... args) throws IOException {
        return new AppProcess(ChildJvm.of(IngestorApplication.class).arguments(args).outputTo(output).start(), output);
    }

    Process process() {
        return process;
    }

    boolean started() throws IOException {
        return output().contains(STARTED);
    }

    String output() throws IOException {
        return Files.exists(output) ? Files.readString(output) : "";
    }

    /**
     * Ends the JVM if it still runs: SIGTERM, so that it stops its embedded servers as it does, then SIGKILL past a
     * minute.
     */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(1, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
        }
    }
}
