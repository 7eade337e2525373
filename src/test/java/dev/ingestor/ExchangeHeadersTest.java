package dev.ingestor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md, Exchange headers and properties, is the one list of the {@code Ingestor*} names routes and beans
 * put on an exchange. This keeps it whole and true: every name used in routes/ or src/main/java is listed, every
 * name listed is used, each is a header or a property as the table says, and Java spells each name once, as the
 * constant the table names.
 */
class ExchangeHeadersTest {

    private static final Path DESIGN = Path.of("docs/design.md");
    private static final String SECTION = "## Exchange headers and properties";
    private static final Pattern NAME = Pattern.compile("\\bIngestor[A-Z]\\w*\\b");
    private static final Pattern ROW = Pattern.compile("^\\| `(Ingestor\\w+)` \\| ([^|]+) \\| ([^|]+) \\|.*");
    private static final Pattern TYPE = Pattern.compile("\\b(?:class|record|interface|enum) (Ingestor\\w+)");
    private static final Pattern CONSTANT = Pattern.compile("static final String ([A-Z_]+) = \"(Ingestor\\w+)\";");
    private static final Pattern LITERAL = Pattern.compile("\"(Ingestor[A-Z]\\w*)\"");

    /** name -> kind ("header", "property", or both) and the Java constant, as the table says. */
    private static final Map<String, String> KINDS = new TreeMap<>();
    private static final Map<String, String> CONSTANTS = new TreeMap<>();
    private static final List<Source> ROUTES = new ArrayList<>();
    private static final List<Source> JAVA = new ArrayList<>();

    /** A file's text, and the same without its comments (a comment names, it does not use). */
    private record Source(Path path, String text, String code) {
    }

    @BeforeAll
    static void read() throws IOException {
        String design = Files.readString(DESIGN);
        int start = design.indexOf(SECTION);
        assertThat(start).as("docs/design.md has the section '%s'", SECTION).isNotNegative();
        int end = design.indexOf("\n## ", start + SECTION.length());
        for (String line : design.substring(start, end < 0 ? design.length() : end).split("\n")) {
            Matcher row = ROW.matcher(line);
            if (row.matches()) {
                assertThat(KINDS.put(row.group(1), row.group(2).trim())).as("%s listed once", row.group(1)).isNull();
                CONSTANTS.put(row.group(1), row.group(3).trim().replace("`", ""));
            }
        }
        assertThat(KINDS).as("rows of the table in '%s'", SECTION).isNotEmpty();
        for (Path file : files(Path.of("routes"), ".camel.yaml")) {
            String text = Files.readString(file);
            ROUTES.add(new Source(file, text, text.replaceAll("(?m)(^|\\s)#.*$", "$1")));
        }
        for (Path file : files(Path.of("src/main/java"), ".java")) {
            String text = Files.readString(file);
            JAVA.add(new Source(file, text, text.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("(?m)^\\s*//.*$", "")));
        }
    }

    @Test
    void everyNameInUseIsListed() {
        Set<String> classes = new TreeSet<>();
        JAVA.forEach(s -> TYPE.matcher(s.code()).results().forEach(m -> classes.add(m.group(1))));
        Map<String, Path> named = new TreeMap<>();
        Stream.concat(ROUTES.stream(), JAVA.stream()).forEach(s -> NAME.matcher(s.text()).results()
                .map(java.util.regex.MatchResult::group).filter(n -> !classes.contains(n))
                .forEach(n -> named.putIfAbsent(n, s.path())));
        named.keySet().removeAll(KINDS.keySet());
        assertThat(named).as("Ingestor* names in routes/ and src/main/java (with the first file that names it) missing"
                + " from docs/design.md, '%s'", SECTION).isEmpty();
    }

    @Test
    void everyNameListedIsUsed() {
        Set<String> used = new TreeSet<>();
        Stream.concat(ROUTES.stream(), JAVA.stream())
                .forEach(s -> NAME.matcher(s.code()).results().forEach(m -> used.add(m.group())));
        // a constant's uses are the uses of its name
        for (Source s : JAVA) {
            for (Map.Entry<String, String> c : constants().entrySet()) {
                String field = c.getValue().substring(c.getValue().indexOf('.') + 1);
                String owner = c.getValue().substring(0, c.getValue().indexOf('.'));
                boolean declaredHere = s.path().getFileName().toString().equals(owner + ".java");
                long uses = Pattern.compile("\\b" + Pattern.quote(c.getValue()) + "\\b").matcher(s.code()).results()
                        .count()
                        + (declaredHere
                                ? Pattern.compile("\\b" + field + "\\b").matcher(s.code()).results().count() - 1
                                : 0);
                if (uses > 0) {
                    used.add(c.getKey());
                }
            }
        }
        Set<String> unused = new TreeSet<>(KINDS.keySet());
        unused.removeAll(used);
        assertThat(unused).as("names listed in docs/design.md, '%s', that no route or bean uses", SECTION).isEmpty();
    }

    @Test
    void javaSpellsEachNameOnceAsTheConstantTheTableNames() {
        Map<String, List<String>> literals = new TreeMap<>();
        for (Source s : JAVA) {
            Matcher m = LITERAL.matcher(s.code());
            while (m.find()) {
                literals.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(s.path().toString());
            }
        }
        literals.forEach((name, where) -> assertThat(where)
                .as("%s is spelt as a string once, in its constant; elsewhere use the constant", name).hasSize(1));
        Map<String, String> declared = constants();
        assertThat(declared.keySet()).as("every literal is a constant declaration").isEqualTo(literals.keySet());
        for (Map.Entry<String, String> c : declared.entrySet()) {
            assertThat(CONSTANTS.get(c.getKey())).as("the constant of %s in docs/design.md", c.getKey())
                    .isEqualTo(c.getValue());
        }
        CONSTANTS.forEach((name, constant) -> {
            if (!declared.containsKey(name)) {
                assertThat(constant).as("%s has no constant in Java, so the table says none", name).isEqualTo("—");
            }
        });
    }

    @Test
    void eachNameIsTheKindTheTableSays() {
        Map<String, Set<String>> seen = new TreeMap<>();
        for (Source s : ROUTES) {
            kinds(s.code(), "\\$\\{header\\.(Ingestor\\w+)\\}", "header", seen);
            kinds(s.code(), "\\$\\{exchangeProperty\\.(Ingestor\\w+)\\}", "property", seen);
            kinds(s.code(), "(?m)^\\s*-?\\s*(?:setHeader|removeHeader):\\s*\\n\\s*name: (Ingestor\\w+)", "header",
                    seen);
            kinds(s.code(), "(?m)^\\s*-?\\s*(?:setProperty|removeProperty):\\s*\\n\\s*name: (Ingestor\\w+)", "property",
                    seen);
            kinds(s.code(), "(?m)^\\s*header: (Ingestor\\w+)\\s*$", "header", seen);
        }
        Map<String, String> byReference = new LinkedHashMap<>();
        constants().forEach((name, constant) -> byReference.put(constant, name));
        for (Source s : JAVA) {
            String owner = s.path().getFileName().toString().replace(".java", "");
            Matcher m = Pattern
                    .compile("(@Header\\(|(?:set|get)Header\\(|@ExchangeProperty\\(|(?:set|get|remove)Property\\()"
                            + "(?:\"(Ingestor\\w+)\"|([A-Za-z]+\\.)?([A-Z_]+))")
                    .matcher(s.code());
            while (m.find()) {
                String name = m.group(2) != null
                        ? m.group(2)
                        : byReference.get((m.group(3) == null ? owner + "." : m.group(3)) + m.group(4));
                if (name != null) {
                    seen.computeIfAbsent(name, k -> new TreeSet<>())
                            .add(m.group(1).contains("Header") ? "header" : "property");
                }
            }
        }
        seen.forEach((name, kinds) -> {
            for (String kind : kinds) {
                assertThat(KINDS.getOrDefault(name, "")).as("%s is used as a %s; docs/design.md says", name, kind)
                        .contains(kind);
            }
        });
        KINDS.forEach(
                (name, kind) -> assertThat(seen).as("how %s is used, header or property", name).containsKey(name));
    }

    private static void kinds(String code, String regex, String kind, Map<String, Set<String>> seen) {
        Pattern.compile(regex).matcher(code).results()
                .forEach(m -> seen.computeIfAbsent(m.group(1), k -> new TreeSet<>()).add(kind));
    }

    /** name -> Class.FIELD of its declaration in src/main/java. */
    private static Map<String, String> constants() {
        Map<String, String> constants = new TreeMap<>();
        for (Source s : JAVA) {
            String owner = s.path().getFileName().toString().replace(".java", "");
            CONSTANT.matcher(s.code()).results().forEach(m -> constants.put(m.group(2), owner + "." + m.group(1)));
        }
        return constants;
    }

    private static List<Path> files(Path root, String suffix) {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.toString().endsWith(suffix)).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
