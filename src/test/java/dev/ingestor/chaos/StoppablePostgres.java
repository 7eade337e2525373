package dev.ingestor.chaos;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A real PostgreSQL server of its own that a test stops (a fast shutdown: every session is terminated, the
 * port refuses connections) or kills (SIGKILL of the postmaster, as the OOM killer or a power cut of the
 * process would) and starts again on the same port and data folder, as an outage or a restart does.
 * <p>
 * It runs durable, as production does: {@code fsync=on} and {@code synchronous_commit=on} (the embedded
 * server's default turns synchronous commit off, which may lose the last commits a caller was told about when
 * the server dies), so a commit acknowledged before a kill is there after the restart.
 */
final class StoppablePostgres {

    private final Path dataDir;
    private final int port;
    private EmbeddedPostgres server;

    StoppablePostgres() {
        try {
            this.dataDir = Files.createTempDirectory("ingestor-chaos-pg-");
            try (ServerSocket probe = new ServerSocket(0)) {
                this.port = probe.getLocalPort();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    synchronized void start() {
        if (server != null) {
            return;
        }
        try {
            // the same folder every time: what was committed before the stop is there after the start
            server = EmbeddedPostgres.builder().setDataDirectory(dataDir).setCleanDataDirectory(false).setPort(port)
                    .setServerConfig("fsync", "on")
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("full_page_writes", "on")
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("PostgreSQL did not start on port " + port, e);
        }
    }

    synchronized void stop() {
        if (server == null) {
            return;
        }
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException("PostgreSQL did not stop", e);
        }
        server = null;
    }

    /**
     * Kills the postmaster with SIGKILL: no shutdown checkpoint, nothing flushed that was not already; its
     * processes end on their own once they see it gone, and the next {@link #start} recovers from the WAL.
     */
    synchronized void kill() {
        if (server == null) {
            return;
        }
        Path pidFile = dataDir.resolve("postmaster.pid");
        long pid;
        try {
            pid = Long.parseLong(Files.readAllLines(pidFile, StandardCharsets.US_ASCII).get(0).trim());
        } catch (IOException e) {
            throw new UncheckedIOException("no postmaster.pid in " + dataDir, e);
        }
        ProcessHandle postmaster = ProcessHandle.of(pid)
                .orElseThrow(() -> new IllegalStateException("postmaster " + pid + " is not running"));
        List<ProcessHandle> all = new ArrayList<>(postmaster.descendants().toList());
        all.add(postmaster);
        postmaster.destroyForcibly(); // SIGKILL
        await("PostgreSQL processes gone after the postmaster was killed").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50)).until(() -> all.stream().noneMatch(ProcessHandle::isAlive));
        try {
            // a killed postmaster leaves its lock file; PostgreSQL takes it over when the pid in it is gone, but a
            // machine whose init does not reap orphans keeps that pid as a zombie, which the new postmaster would
            // take for a live one. A supervisor (systemd, a container runtime) reaps it; here the file goes
            Files.deleteIfExists(pidFile);
            // releases the embedded server's own folder lock; its pg_ctl stop finds no server and says so in the log
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException("the killed PostgreSQL's files could not be released", e);
        }
        server = null;
    }

    String jdbcUrl() {
        return "jdbc:postgresql://localhost:" + port + "/postgres?user=postgres";
    }
}
