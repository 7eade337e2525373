package dev.ingestor.embedded;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts embedded PostgreSQL for real use rather than for a test: the data directory is kept between runs
 * (zonky's builder wipes it by default) and commits are durable (its default is {@code synchronous_commit=off},
 * fine for tests, wrong for the keys and jobs Ingestor holds).
 */
public final class EmbeddedPostgresServer {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgresServer.class);

    private EmbeddedPostgresServer() {
    }

    public static EmbeddedPostgres start(Path dataDir, int port) throws IOException {
        Path dir = dataDir.toAbsolutePath();
        Files.createDirectories(dir);
        stopOrphanedPostmaster(dir);
        LOG.info("starting embedded PostgreSQL with data in {}", dir);
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(dir)
                .setCleanDataDirectory(false)
                .setPGStartupWait(Duration.ofSeconds(60))
                .setServerConfig("synchronous_commit", "on")
                .setServerConfig("fsync", "on")
                .setServerConfig("full_page_writes", "on")
                .setServerConfig("max_connections", "200");
        if (port > 0) {
            builder.setPort(port);
        }
        EmbeddedPostgres postgres = builder.start();
        LOG.info("embedded PostgreSQL ready at {}", postgres.getJdbcUrl("postgres", "postgres"));
        return postgres;
    }

    /**
     * A JVM killed without its shutdown hook leaves its postmaster running on our data directory, and a new
     * one cannot start beside it. That process serves nobody any more: stop it cleanly.
     */
    static void stopOrphanedPostmaster(Path dataDir) throws IOException {
        Path pidFile = dataDir.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return;
        }
        List<String> lines = Files.readAllLines(pidFile);
        Optional<ProcessHandle> postmaster = lines.isEmpty() ? Optional.empty() : parsePid(lines.get(0)).flatMap(ProcessHandle::of);
        if (postmaster.isEmpty() || !postmaster.get().isAlive()) {
            return;
        }
        String command = postmaster.get().info().command().orElse("");
        if (!command.contains("postgres")) {
            return;
        }
        LOG.warn("stopping an orphaned embedded PostgreSQL (pid {}) left on {} by an earlier run", postmaster.get().pid(), dataDir);
        postmaster.get().destroy();
        try {
            postmaster.get().onExit().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IOException("orphaned PostgreSQL (pid " + postmaster.get().pid() + ") on " + dataDir + " did not stop", e);
        }
    }

    private static Optional<Long> parsePid(String line) {
        try {
            return Optional.of(Long.parseLong(line.trim()));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
