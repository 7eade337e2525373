package dev.ingestor.config;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

class RoutesLocationTest {

    @TempDir
    Path dir;

    private String patternFor(MockEnvironment environment) {
        new RoutesLocation().postProcessEnvironment(environment, null);
        return environment.getProperty(RoutesLocation.PATTERN);
    }

    @Test
    void routesOnDiskAreReadFromDisk() throws Exception {
        Files.writeString(dir.resolve("intake.camel.yaml"), "- route: {}\n");
        String pattern = patternFor(new MockEnvironment().withProperty("ingestor.routes-dir", dir.toString()));
        assertThat(pattern).isEqualTo("file:" + dir.toAbsolutePath().normalize() + "/*.camel.yaml");
    }

    @Test
    void withoutRoutesOnDiskThePackagedCopyIsUsed() {
        assertThat(patternFor(new MockEnvironment().withProperty("ingestor.routes-dir", dir.resolve("missing").toString())))
                .isEqualTo("classpath:routes/*.camel.yaml");
        assertThat(patternFor(new MockEnvironment().withProperty("ingestor.routes-dir", dir.toString())))
                .isEqualTo("classpath:routes/*.camel.yaml");
    }

    @Test
    void anExplicitPatternWins() {
        MockEnvironment environment = new MockEnvironment().withProperty(RoutesLocation.PATTERN, "classpath:mine/*.yaml");
        assertThat(patternFor(environment)).isEqualTo("classpath:mine/*.yaml");
    }
}
