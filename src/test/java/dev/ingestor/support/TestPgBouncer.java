package dev.ingestor.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Assumptions;

/**
 * A real PgBouncer (Debian's {@code pgbouncer}) in transaction mode in front of the tests' PostgreSQL, with few
 * server connections so that the app's consecutive transactions land on different server sessions. Without the
 * binary a test using it is skipped, unless INGESTOR_REQUIRE_PGBOUNCER is set (as .ci/run does).
 */
public final class TestPgBouncer implements AutoCloseable {

    private static final Path BINARY = Path.of("/usr/sbin/pgbouncer");

    private final Process process;
    private final Path folder;
    private final int port;

    private TestPgBouncer(Process process, Path folder, int port) {
        this.process = process;
        this.folder = folder;
        this.port = port;
    }

    /** Skips the calling test where PgBouncer is not installed and not required. */
    public static void assumeInstalled() {
        boolean installed = Files.isExecutable(BINARY);
        if (System.getenv("INGESTOR_REQUIRE_PGBOUNCER") != null) {
            assertThat(installed).as("pgbouncer (apt-get install pgbouncer)").isTrue();
        }
        Assumptions.assumeTrue(installed, "pgbouncer is not installed (apt-get install pgbouncer)");
    }

    /**
     * Starts PgBouncer for {@code database} of {@link TestPostgres} in transaction mode with {@code serverConnections}
     * server connections at most.
     */
    public static TestPgBouncer start(String database, int serverConnections) {
        try {
            TestPostgres.jdbcUrl(database); // creates the database
            int port = FreePorts.outsideTheEphemeralRange();
            Path folder = Files.createTempDirectory("pgbouncer");
            Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.writeString(folder.resolve("users.txt"), "\"postgres\" \"\"\n");
            Files.writeString(folder.resolve("pgbouncer.ini"), """
                    [databases]
                    %s = host=localhost port=%d dbname=%s
                    [pgbouncer]
                    listen_addr = 127.0.0.1
                    listen_port = %d
                    unix_socket_dir =
                    auth_type = trust
                    auth_file = %s
                    pool_mode = transaction
                    default_pool_size = %d
                    max_client_conn = 500
                    """.formatted(database, TestPostgres.server().getPort(), database, port,
                    folder.resolve("users.txt"), serverConnections));
            List<String> command = new ArrayList<>(List.of(BINARY.toString()));
            if ("root".equals(System.getProperty("user.name"))) {
                command.addAll(List.of("-u", "nobody")); // it refuses to run as root
            }
            command.add(folder.resolve("pgbouncer.ini").toString());
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(folder.resolve("pgbouncer.log").toFile()).start();
            TestPgBouncer bouncer = new TestPgBouncer(process, folder, port);
            bouncer.awaitListening();
            return bouncer;
        } catch (IOException e) {
            throw new UncheckedIOException("pgbouncer did not start", e);
        }
    }

    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=postgres";
    }

    /** Until PgBouncer accepts connections; fails at once, with its log, if it exits instead. */
    private void awaitListening() {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "pgbouncer exited: " + Files.readString(folder.resolve("pgbouncer.log")));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return true;
            } catch (IOException notYet) {
                return false;
            }
        });
    }

    @Override
    public void close() {
        process.destroy();
    }
}
