package dev.ingestor.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Creates the test JVM's temporary folder ({@code java.io.tmpdir}, target/tmp under Maven) before any test runs:
 * Maven's build creates it, a run that skips that step (an IDE's, after {@code ./mvnw clean}) would otherwise fail
 * at its first temporary folder. Registered in META-INF/services.
 */
public class TestTemporaryFolder implements LauncherSessionListener {

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        try {
            Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the temporary folder java.io.tmpdir names", e);
        }
    }
}
