package dev.ingestor.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/** Logging as Spring Boot configures it for the app: one event is one line, whatever text it carries. */
@ExtendWith(OutputCaptureExtension.class)
class LogLineEscapingTest {

    private static final Logger LOG = LoggerFactory.getLogger(LogLineEscapingTest.class);
    /** A file name as a hostile supplier would choose it: a forged line, a carriage return, ANSI colours. */
    private static final String HOSTILE = "a.csv\n2026-01-01T00:00:00.000Z ERROR 1 --- [main] forged : pwned\r\u001b[31mred\u2028x";

    @Configuration(proxyBeanMethods = false)
    static class NoBeans {
    }

    @Test
    void supplierTextInAMessageOrItsArgumentsStaysOnOneEscapedLine(CapturedOutput output) {
        try (ConfigurableApplicationContext ignored = startSpringBootLogging()) {
            LOG.warn("file {} refused", HOSTILE);
            LOG.warn("concatenated " + HOSTILE + " refused");
        }
        List<String> lines = output.getAll().lines().filter(line -> line.contains("forged")).toList();
        assertThat(lines).hasSize(2).allSatisfy(line -> assertThat(line)
                .contains(" WARN ")
                .contains(
                        "a.csv\\n2026-01-01T00:00:00.000Z ERROR 1 --- [main] forged : pwned\\r\\u001B[31mred\\u2028x refused")
                .doesNotContain("\u001b")
                .doesNotContain("\r"));
        assertThat(output.getAll().lines()).noneMatch(line -> line.startsWith("2026-01-01T00:00:00.000Z ERROR"));
    }

    @Test
    void stackTracesKeepTheirLines(CapturedOutput output) {
        try (ConfigurableApplicationContext ignored = startSpringBootLogging()) {
            LOG.error("poll failed", new IllegalStateException("boom"));
        }
        List<String> lines = output.getAll().lines().toList();
        int exception = lines.indexOf("java.lang.IllegalStateException: boom");
        assertThat(exception).isPositive();
        assertThat(lines.get(exception + 1)).startsWith("\tat ");
    }

    /** Logging set up the way the application's start sets it up (the escaping included). */
    private static ConfigurableApplicationContext startSpringBootLogging() {
        return new SpringApplicationBuilder(NoBeans.class).web(WebApplicationType.NONE)
                .run("--logging.level.root=INFO");
    }
}
