package dev.ingestor.chaos;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A real PostgreSQL server of its own that a test stops (a fast shutdown: every session is terminated, the
 * port refuses connections) and starts again on the same port and data folder, as an outage or a restart does.
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
            server = EmbeddedPostgres.builder().setDataDirectory(dataDir).setCleanDataDirectory(false).setPort(port).start();
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

    String jdbcUrl() {
        return "jdbc:postgresql://localhost:" + port + "/postgres?user=postgres";
    }
}
