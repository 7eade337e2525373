package dev.ingestor.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.Test;

/**
 * The jar carries the embedded PostgreSQL of the platform that builds it and no other (the pg-binaries-* profiles
 * of pom.xml): the four platforms' binaries were half of the jar.
 */
class PostgresBinariesOfThisPlatformTest {

    /** The archives zonky's binaries jars hold, by platform. */
    private static final List<String> ARCHIVES = List.of("postgres-linux-x86_64.txz",
            "postgres-linux-x86_64-alpine_linux.txz",
            "postgres-linux-arm_64.txz", "postgres-darwin-x86_64.txz", "postgres-darwin-arm_64.txz",
            "postgres-windows-x86_64.txz");

    @Test
    void onlyThisPlatformsBinariesAreOnTheClassPath() {
        List<String> present = ARCHIVES.stream().filter(name -> getClass().getResource("/" + name) != null).toList();
        assertThat(present).containsExactly(thisPlatformsArchive());
    }

    private static String thisPlatformsArchive() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        String system = os.startsWith("windows") ? "windows" : os.startsWith("mac") ? "darwin" : "linux";
        String machine = arch.equals("aarch64") || arch.equals("arm64") ? "arm_64" : "x86_64";
        return "postgres-" + system + "-" + machine + ".txz";
    }
}
