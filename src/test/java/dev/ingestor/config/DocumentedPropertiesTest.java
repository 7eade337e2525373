package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.core.io.ClassPathResource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every {@code ingestor.*} property that the docs, the routes' descriptions, the deployment files and the scripts
 * name is one the app binds: a name that binds nothing is a setting an operator sets to no effect. The table of
 * docs/configuration.md is the metadata's own (ConfigurationDocsTest); this covers every other place a property is
 * named in prose.
 */
@Timeout(30)
class DocumentedPropertiesTest {

    /** {@code ingestor.a.b-c}, not part of a Java name ({@code dev.ingestor.x}), a path or a placeholder. */
    private static final Pattern NAME = Pattern.compile("(?<![\\w.\\-/$])ingestor(?:\\.[a-z][a-z0-9-]*)+");
    /** A supplier's own property: {@code ingestor.suppliers.<CODE>.rest}. */
    private static final Pattern SUPPLIER = Pattern.compile(
            "(?<![\\w.\\-/$])ingestor\\.suppliers\\.(?:<CODE>|[A-Za-z0-9_]+)((?:\\.[a-z][a-z0-9-]*)*)");
    /** Names of other things that read like a property: the jar, a dump file. */
    private static final Set<String> NOT_PROPERTIES = Set.of("ingestor.jar", "ingestor.dump");

    private static final Set<String> BOUND = new TreeSet<>();
    private static final Set<String> TOPICS = new TreeSet<>();

    @BeforeAll
    static void load() throws IOException {
        try (InputStream in = new ClassPathResource("META-INF/spring-configuration-metadata.json").getInputStream()) {
            JsonNode root = new JsonMapper().readTree(in);
            for (JsonNode property : root.get("properties")) {
                String name = property.get("name").asString();
                BOUND.add(name);
                if (name.endsWith("-topic")) {
                    TOPICS.add(property.path("defaultValue").asString());
                }
            }
            root.get("groups").forEach(group -> BOUND.add(group.get("name").asString()));
        }
    }

    @Test
    void everyIngestorPropertyNamedOutsideTheGeneratedTableIsBound() throws IOException {
        Set<String> supplierPaths = new TreeSet<>();
        Set<String> supplierMaps = new TreeSet<>();
        walk(SupplierProperties.class, "", supplierPaths, supplierMaps);
        assertThat(supplierPaths).contains("max-file-size", "sftp.known-hosts-file", "file-drop.read-lock");

        List<String> unbound = new ArrayList<>();
        int checked = 0;
        for (Path file : documents()) {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            Matcher name = NAME.matcher(text);
            while (name.find()) {
                String found = name.group();
                if (!NOT_PROPERTIES.contains(found) && !TOPICS.contains(found)
                        && !found.startsWith("ingestor.suppliers.")
                        && !isBound(found)) {
                    unbound.add(file + ": " + found);
                }
                checked++;
            }
            Matcher supplier = SUPPLIER.matcher(text);
            while (supplier.find()) {
                String rest = supplier.group(1).isEmpty() ? "" : supplier.group(1).substring(1);
                if (!rest.isEmpty() && !supplierPaths.contains(rest) && !belowOneOf(rest, supplierPaths)
                        && supplierMaps.stream().noneMatch(map -> rest.startsWith(map + "."))) {
                    unbound.add(file + ": " + supplier.group());
                }
                checked++;
            }
        }
        assertThat(checked).as("property names found").isGreaterThan(200);
        assertThat(unbound).as("ingestor.* names that no settings class binds").isEmpty();
    }

    /**
     * The app's environment in docker-compose.yml: each variable is a property the app binds, by Spring Boot's
     * mapping of a property to a variable (upper case, {@code .} to {@code _}, {@code -} left out or {@code _}), or
     * the one JSON variable.
     */
    @Test
    void everyVariableComposeGivesTheAppIsABoundProperty() throws IOException {
        Set<String> variables = new TreeSet<>();
        var resolver = new org.springframework.core.io.support.PathMatchingResourcePatternResolver();
        for (var metadata : resolver.getResources("classpath*:META-INF/spring-configuration-metadata.json")) {
            try (InputStream in = metadata.getInputStream()) {
                for (JsonNode property : new JsonMapper().readTree(in).path("properties")) {
                    // INGESTOR_ADMIN_APIKEYSHA256, and the form Spring Boot reads too, INGESTOR_INSTANCE_ID
                    String name = property.get("name").asString().replace(".", "_").toUpperCase(java.util.Locale.ROOT);
                    variables.add(name.replace("-", ""));
                    variables.add(name.replace("-", "_"));
                }
            }
        }
        Map<String, Object> compose = new org.yaml.snakeyaml.Yaml()
                .load(Files.readString(Path.of("docker-compose.yml"), StandardCharsets.UTF_8));
        @SuppressWarnings("unchecked")
        Map<String, Object> environment = (Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) compose
                .get("services")).get("ingestor")).get("environment");
        assertThat(environment).containsKeys("INGESTOR_KAFKA_BOOTSTRAP_SERVERS", "SPRING_DATASOURCE_URL");
        assertThat(environment.keySet()).as("variables of the app in docker-compose.yml that bind nothing")
                .allMatch(name -> name.equals("SPRING_APPLICATION_JSON") || variables.contains(name));
    }

    /** A property, or a group of them ({@code ingestor.wakeups}, {@code ingestor.intake.redelivery}). */
    private static boolean isBound(String name) {
        return BOUND.contains(name) || BOUND.stream().anyMatch(property -> property.startsWith(name + "."));
    }

    /** {@code rest} names a group of a supplier's properties ({@code sftp}, {@code mapping}). */
    private static boolean belowOneOf(String rest, Set<String> paths) {
        return paths.stream().anyMatch(path -> path.startsWith(rest + "."));
    }

    /** A supplier's property paths, by its getters; a nested settings class adds its own below its name. */
    private static void walk(Class<?> type, String prefix, Set<String> paths, Set<String> maps) {
        for (Method getter : type.getMethods()) {
            String method = getter.getName();
            int at = method.startsWith("get") ? 3 : method.startsWith("is") ? 2 : -1;
            if (at < 0 || getter.getParameterCount() > 0 || getter.getDeclaringClass() != type
                    || Modifier.isStatic(getter.getModifiers())
                    || method.equals("isEnabled") && prefix.equals("sftp.")) {
                continue;
            }
            String path = prefix + kebab(method.substring(at));
            paths.add(path);
            Class<?> returned = getter.getReturnType();
            if (Map.class.isAssignableFrom(returned)) {
                maps.add(path);
            } else if (returned.getDeclaringClass() == SupplierProperties.class && !returned.isEnum()) {
                walk(returned, path + ".", paths, maps);
            }
        }
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
    }

    /** What an operator, an engineer or a partner reads: the docs, the routes, the deployment files, the scripts. */
    private static List<Path> documents() throws IOException {
        List<Path> files = new ArrayList<>(List.of(Path.of("README.md"), Path.of("CONTRIBUTING.md"),
                Path.of("docker-compose.yml"), Path.of("Dockerfile"), Path.of("src/main/resources/application.yaml"),
                Path.of("src/main/resources/openapi.yaml")));
        for (String folder : List.of("docs", "routes", "ops")) {
            try (Stream<Path> tree = Files.walk(Path.of(folder))) {
                tree.filter(Files::isRegularFile).sorted().forEach(files::add);
            }
        }
        return files;
    }
}
