package dev.ingestor.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
 * fine for tests, wrong for the keys and jobs Ingestor holds). A data directory made by another PostgreSQL major
 * is refused before anything touches it ({@link DataFolderMajor}), and so is one another running instance holds
 * ({@link DataFolderLock}).
 * <p>
 * zonky's defaults trust every local user (any process on the host could log in as the superuser and run
 * {@code COPY ... TO PROGRAM}). Here the server listens on 127.0.0.1 only, has no Unix socket, and takes
 * password (SCRAM) logins only. The passwords are generated at the first start into owner-only files beside
 * the data directory: {@code <dir>-superuser.password} for setup, {@code <dir>-app.password} for the role
 * {@value #APP_ROLE} (no superuser, no role or database creation) that owns the database the app uses.
 */
final class EmbeddedPostgresServer {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgresServer.class);
    static final String SUPERUSER = "postgres";
    static final String APP_ROLE = "ingestor";
    static final String APP_DATABASE = "ingestor";
    static final String HBA_PASSWORD_ONLY = """
            # Written by Ingestor at each start of its embedded PostgreSQL: password (SCRAM) logins on loopback only.
            local all all scram-sha-256
            host all all 127.0.0.1/32 scram-sha-256
            """;
    /** Only for the one start that gives a data directory made before passwords were required its password. */
    private static final String HBA_SETTING_THE_PASSWORD = """
            # Written by Ingestor: the superuser alone, on loopback, while its first password is set.
            host postgres postgres 127.0.0.1/32 trust
            """;

    /** How the app logs in: the {@value #APP_ROLE} role, or the superuser on a data directory from before it. */
    public record Login(String jdbcUrl, String username, String password) {
        @Override
        public String toString() {
            return "Login[" + jdbcUrl + ", " + username + "]";
        }
    }

    private EmbeddedPostgresServer() {
    }

    public static EmbeddedPostgres start(Path dataDir, int port) throws IOException {
        Path dir = dataDir.toAbsolutePath();
        // first of all: a folder a running instance holds is refused, nothing in it touched, no process signalled.
        // Held while this start looks at the folder, so no other start runs a server there meanwhile
        try (DataFolderLock lock = DataFolderLock.take(dir)) {
            UnfinishedFirstStart.discardLeftovers(dir);
            // before anything touches the folder: one of another PostgreSQL major is refused, never initialised over
            DataFolderMajor.requireStartable(dir, PostgresBinaries::major);
            // only a folder initdb makes from nothing is marked, and so ever emptied
            if (UnfinishedFirstStart.isMissingOrEmpty(dir)) {
                Files.createDirectories(dir);
                UnfinishedFirstStart.begin(dir);
            }
            stopOrphanedPostmaster(dir);
        }
        Path superuserFile = superuserPasswordFile(dir);
        boolean fresh = !Files.exists(dir.resolve("postgresql.conf"));
        boolean settingFirstPassword = !fresh && !Files.exists(superuserFile);
        String superuserPassword;
        if (fresh) {
            superuserPassword = PasswordFile.generate();
            PasswordFile.write(superuserFile, superuserPassword);
        } else if (settingFirstPassword) {
            superuserPassword = PasswordFile.generate();
        } else {
            superuserPassword = PasswordFile.read(superuserFile);
        }
        LOG.info("starting embedded PostgreSQL with data in {}", dir);
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                .setDataDirectory(dir)
                .setCleanDataDirectory(false)
                // its closer would stop the server as soon as the JVM is told to stop, beside Spring's own hook:
                // the app's last work (handing back its jobs) would find no database. Whoever starts it closes
                // it: the app after everything that uses it (EmbeddedServersStopLast)
                .setRegisterShutdownHook(false)
                .setPGStartupWait(Duration.ofSeconds(60))
                .setServerConfig("synchronous_commit", "on")
                .setServerConfig("fsync", "on")
                .setServerConfig("full_page_writes", "on")
                .setServerConfig("max_connections", "200")
                .setServerConfig("listen_addresses", "127.0.0.1")
                // no socket file in a shared folder such as /tmp: TCP on loopback is the only way in
                .setServerConfig("unix_socket_directories", "''")
                .setServerConfig("password_encryption", "scram-sha-256")
                // zonky runs initdb with "-A trust" and appends these as "--key=value" options, which initdb
                // reads after it: the superuser gets its password at creation, no trust rule is ever written
                .setLocaleConfig("auth-host", "scram-sha-256")
                .setLocaleConfig("auth-local", "scram-sha-256")
                .setLocaleConfig("pwfile", superuserFile.toString())
                // the password zonky's own readiness check logs in with
                .setConnectConfig("password", superuserPassword)
                .setDataDirectoryCustomizer(folder -> writeHba(folder.toPath(),
                        settingFirstPassword ? HBA_SETTING_THE_PASSWORD : HBA_PASSWORD_ONLY));
        if (port > 0) {
            builder.setPort(port);
        }
        EmbeddedPostgres postgres = builder.start();
        try {
            if (settingFirstPassword) {
                setFirstSuperuserPassword(postgres, dir, superuserFile, superuserPassword);
            }
            ensureAppRole(postgres, dir);
            UnfinishedFirstStart.finish(dir);
        } catch (IOException | RuntimeException e) {
            postgres.close();
            throw e;
        }
        LOG.info("embedded PostgreSQL ready on 127.0.0.1:{} (password logins only)", postgres.getPort());
        return postgres;
    }

    /** The login of the app on a server started by {@link #start}. */
    public static Login appLogin(EmbeddedPostgres postgres, Path dataDir) throws IOException {
        Path dir = dataDir.toAbsolutePath();
        Path appFile = appPasswordFile(dir);
        if (Files.exists(appFile)) {
            return new Login(jdbcUrl(postgres, APP_DATABASE), APP_ROLE, PasswordFile.read(appFile));
        }
        return new Login(jdbcUrl(postgres, "postgres"), SUPERUSER, PasswordFile.read(superuserPasswordFile(dir)));
    }

    static Path superuserPasswordFile(Path dir) {
        return dir.resolveSibling(dir.getFileName() + "-superuser.password");
    }

    static Path appPasswordFile(Path dir) {
        return dir.resolveSibling(dir.getFileName() + "-app.password");
    }

    private static String jdbcUrl(EmbeddedPostgres postgres, String database) {
        return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + database;
    }

    private static void writeHba(Path folder, String rules) {
        try {
            Files.writeString(folder.resolve("pg_hba.conf"), rules);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write pg_hba.conf in " + folder, e);
        }
    }

    /**
     * A data directory from before passwords were required: its superuser gets one, then password logins
     * alone are allowed. The password file is written only once the server holds it, so a crash in between
     * means doing this again at the next start, never a password the server does not know.
     */
    private static void setFirstSuperuserPassword(EmbeddedPostgres postgres, Path dir, Path file, String password)
            throws IOException {
        try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("ALTER ROLE " + SUPERUSER + " PASSWORD '" + password + "'");
            PasswordFile.write(file, password);
            writeHba(dir, HBA_PASSWORD_ONLY);
            s.execute("SELECT pg_reload_conf()");
        } catch (SQLException e) {
            throw new IOException("cannot set the password of embedded PostgreSQL in " + dir, e);
        }
        LOG.info("embedded PostgreSQL in {} now takes password logins only; the superuser's password is in {}", dir,
                file);
    }

    /**
     * The app's own role and database. A data directory whose tables were made by the superuser in database
     * {@code postgres} (before this role existed) keeps being used that way, so its data stays visible.
     */
    private static void ensureAppRole(EmbeddedPostgres postgres, Path dir) throws IOException {
        Path appFile = appPasswordFile(dir);
        try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            boolean databaseExists = exists(s, "SELECT 1 FROM pg_database WHERE datname = '" + APP_DATABASE + "'");
            if (!databaseExists && exists(s,
                    "SELECT 1 FROM pg_tables WHERE schemaname = 'public' AND tablename = 'flyway_schema_history'")) {
                LOG.warn(
                        "embedded PostgreSQL in {} holds Ingestor's tables in database postgres, made before the app had"
                                + " a role of its own: the app goes on using them as the superuser (a new data directory gets"
                                + " the role {})",
                        dir, APP_ROLE);
                return;
            }
            boolean roleExists = exists(s, "SELECT 1 FROM pg_roles WHERE rolname = '" + APP_ROLE + "'");
            if (!roleExists || !Files.exists(appFile)) {
                String password = PasswordFile.generate();
                s.execute((roleExists ? "ALTER ROLE " : "CREATE ROLE ") + APP_ROLE
                        + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION PASSWORD '" + password + "'");
                PasswordFile.write(appFile, password);
            }
            if (!databaseExists) {
                s.execute("CREATE DATABASE " + APP_DATABASE + " OWNER " + APP_ROLE);
            }
        } catch (SQLException e) {
            throw new IOException("cannot prepare the role " + APP_ROLE + " in embedded PostgreSQL in " + dir, e);
        }
    }

    private static boolean exists(Statement s, String query) throws SQLException {
        try (ResultSet rs = s.executeQuery(query)) {
            return rs.next();
        }
    }

    /**
     * A JVM killed without its shutdown hook leaves its postmaster running on our data directory, and a new
     * one cannot start beside it. That process serves nobody any more: stop it cleanly. Called only while this start
     * holds the folder's {@link DataFolderLock}, which a running instance's JVM would hold: so the postmaster is no
     * live instance's.
     */
    static void stopOrphanedPostmaster(Path dataDir) throws IOException {
        Path pidFile = dataDir.resolve("postmaster.pid");
        if (!Files.exists(pidFile)) {
            return;
        }
        List<String> lines = Files.readAllLines(pidFile);
        Optional<ProcessHandle> postmaster = lines.isEmpty()
                ? Optional.empty()
                : parsePid(lines.get(0)).flatMap(ProcessHandle::of);
        if (postmaster.isEmpty() || !postmaster.get().isAlive()) {
            return;
        }
        String command = postmaster.get().info().command().orElse("");
        if (!command.contains("postgres")) {
            return;
        }
        LOG.warn("stopping an orphaned embedded PostgreSQL (pid {}) left on {} by an earlier run",
                postmaster.get().pid(), dataDir);
        postmaster.get().destroy();
        try {
            postmaster.get().onExit().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IOException(
                    "orphaned PostgreSQL (pid " + postmaster.get().pid() + ") on " + dataDir + " did not stop", e);
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
