package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.core.io.ClassPathResource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * docs/configuration.md's tables of {@code ingestor.*} properties are made from the configuration metadata (what
 * the configuration processor writes from the settings classes: their javadoc and field defaults, with the
 * deprecations of META-INF/additional-spring-configuration-metadata.json), so the docs say what the code binds.
 * When a settings class changes, the generated section is written again by
 * {@value #REGENERATE}; everything outside its markers is hand-written and left alone.
 */
@Timeout(30)
class ConfigurationDocsTest {

    static final String REGENERATE = "./mvnw -q test -Dtest=ConfigurationDocsTest -Dconfiguration-docs.write=true";
    static final String BEGIN = "<!-- generated from the configuration metadata: do not edit; " + REGENERATE + " -->";
    static final String END = "<!-- end of the generated section -->";
    private static final Path DOCS = Path.of("docs/configuration.md");

    @Test
    void theDocsTableIsTheOneTheMetadataMakes() throws IOException {
        String docs = Files.readString(DOCS, StandardCharsets.UTF_8);
        int begin = docs.indexOf(BEGIN);
        int end = docs.indexOf(END);
        assertThat(begin).as("docs/configuration.md marks its generated section with " + BEGIN).isNotNegative();
        assertThat(end).as("and ends it with " + END).isGreaterThan(begin);
        // blank lines around the tables: the comments are HTML blocks of their own
        String generated = "\n\n" + render() + "\n\n";
        String current = docs.substring(begin + BEGIN.length(), end);
        if (!current.equals(generated) && Boolean.getBoolean("configuration-docs.write")) {
            Files.writeString(DOCS, docs.substring(0, begin + BEGIN.length()) + generated + docs.substring(end),
                    StandardCharsets.UTF_8);
            return;
        }
        assertThat(current).as("docs/configuration.md's generated section differs from the configuration metadata;"
                + " write it again with: " + REGENERATE).isEqualTo(generated);
    }

    @Test
    void javadocBecomesMarkdown() {
        assertThat(markdown("Where raw files ({@code raw/}) go; see {@link dev.ingestor.config.DatabaseTimeouts}. a|b"))
                .isEqualTo("Where raw files (`raw/`) go; see `DatabaseTimeouts`. a\\|b");
        assertThat(markdown("the preview ({@code POST /suppliers/{supplier}/preview}) reads"))
                .isEqualTo("the preview (`POST /suppliers/{supplier}/preview`) reads");
    }

    /** The table of current properties, then the table of former names still read. */
    static String render() throws IOException {
        JsonNode properties;
        try (InputStream in = new ClassPathResource("META-INF/spring-configuration-metadata.json").getInputStream()) {
            properties = new JsonMapper().readTree(in).get("properties");
        }
        List<JsonNode> current = new ArrayList<>();
        List<JsonNode> former = new ArrayList<>();
        for (JsonNode property : properties) {
            if (property.get("name").asString().startsWith("ingestor.")) {
                (property.has("deprecation") ? former : current).add(property);
            }
        }
        Comparator<JsonNode> byName = Comparator.comparing(p -> p.get("name").asString());
        current.sort(byName);
        former.sort(byName);
        StringBuilder out = new StringBuilder();
        out.append("| property | default | meaning |\n|---|---|---|\n");
        for (JsonNode property : current) {
            out.append("| `").append(property.get("name").asString()).append("` | ").append(defaultOf(property))
                    .append(" | ").append(markdown(property.path("description").asString(""))).append(" |\n");
        }
        out.append("\nFormer names, deprecated, read until version ").append(RenamedProperties.REMOVED_IN)
                .append(": a former `ingestor.*` name is read as its replacement, which wins when both are set, and the"
                        + " start logs a WARN naming both.\n\n");
        out.append("| former property | replacement | why |\n|---|---|---|\n");
        for (JsonNode property : former) {
            JsonNode deprecation = property.get("deprecation");
            out.append("| `").append(property.get("name").asString()).append("` | `")
                    .append(deprecation.path("replacement").asString()).append("` | ")
                    .append(markdown(deprecation.path("reason").asString(""))).append(" |\n");
        }
        return out.toString().stripTrailing();
    }

    private static String defaultOf(JsonNode property) {
        if (!property.has("defaultValue")) {
            return "none";
        }
        String value = property.get("defaultValue").asString();
        return value.isEmpty() ? "empty" : "`" + value + "`";
    }

    private static final Pattern TAG = Pattern.compile("\\{@(code|link|linkplain|literal) ");

    /** Javadoc's inline tags as Markdown code: {@code {@code x}} and {@code {@link a.b.C}} become `x` and `C`. */
    static String markdown(String javadoc) {
        String text = javadoc.replaceAll("\\s+", " ").trim();
        StringBuilder out = new StringBuilder();
        Matcher tag = TAG.matcher(text);
        int at = 0;
        while (tag.find(at)) {
            out.append(text, at, tag.start());
            int depth = 1;
            int end = tag.end();
            while (end < text.length() && depth > 0) {
                char c = text.charAt(end++);
                depth += c == '{' ? 1 : c == '}' ? -1 : 0;
            }
            String content = text.substring(tag.end(), depth == 0 ? end - 1 : end).trim();
            if (tag.group(1).startsWith("link")) {
                content = content.split(" ")[0].replaceAll("^(?:[\\w.]+\\.)?", "");
            }
            out.append('`').append(content).append('`');
            at = end;
        }
        out.append(text.substring(at));
        return out.toString().replace("|", "\\|");
    }
}
