package dev.ingestor.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.stereotype.Component;

/**
 * A supplier's field names, {@code ingestor.suppliers.<CODE>.mapping.fields.<name>}, are map keys, and Spring Boot
 * binds a key written without brackets in its relaxed form: of each dot-separated part it keeps ASCII letters,
 * digits, {@code _} and {@code -} (not a leading {@code -}) and drops every other character ({@code Version Nr} is
 * bound as {@code VersionNr}, {@code Größe} as {@code Gre}, {@code Art.-Nr} as {@code Art.Nr}), and keys that differ
 * only in case, {@code -} and {@code _} get one value ({@code Art-Nr}, {@code Art_Nr}). The changed name matches no
 * column of the supplier's files, so its rename would silently not apply: a version column kept as an attribute, a
 * required field missing from every file. A key in brackets ({@code [Version Nr]}) is bound as written.
 *
 * <p>The names as written are still in the environment's property sources (the YAML's keeps its keys as written):
 * they are read there before any bean is made, and a name Spring Boot would change refuses the start, naming the
 * property as written and its bracketed form. {@code SupplierFieldNamesTest} checks the rule against
 * Spring Boot's own binding. The other maps of a mapping ({@code defaults}, {@code constants}) are keyed by record
 * fields, which are bound as written; any other key there is no record field and fails the start in
 * {@code RecordMapping}.
 */
@Component
class SupplierFieldNames implements BeanFactoryPostProcessor, EnvironmentAware {

    /** A part of a key written without brackets that Spring Boot binds as written (not {@code _} alone). */
    private static final Pattern KEPT = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_-]*");
    private static final Pattern UNDERSCORES = Pattern.compile("_+");
    /** {@code ingestor.suppliers.<CODE>.mapping.fields}, the code any. */
    private static final List<String> PATH = List.of("ingestor", "suppliers", "", "mapping", "fields");

    private Environment environment;

    // told, not injected: a factory post-processor is made before constructors are autowired
    @Override
    public void setEnvironment(Environment environment) { this.environment = environment; }

    /** Before any bean is made: before {@code ingestor.*} is bound, an embedded database started. */
    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
        if (environment instanceof ConfigurableEnvironment configurable) {
            check(configurable);
        }
    }

    /** Fails, naming each property as written and its fix, when Spring Boot would change a supplier field name. */
    static void check(ConfigurableEnvironment environment) {
        // each supplier field name as written once, with the value of the source that wins
        Map<String, Object> written = new LinkedHashMap<>();
        for (PropertySource<?> source : environment.getPropertySources()) {
            // environment variables hold no names of this form: Spring Boot maps theirs by a rule of its own
            if (source instanceof EnumerablePropertySource<?> names
                    && !(source instanceof SystemEnvironmentPropertySource)) {
                for (String name : names.getPropertyNames()) {
                    if (!written.containsKey(name) && isFieldName(parts(name))) {
                        written.put(name, source.getProperty(name));
                    }
                }
            }
        }
        List<String> refused = refusals(written);
        if (!refused.isEmpty()) {
            throw new IllegalStateException(String.join("; ", refused) + " (Spring Boot keeps only ASCII letters,"
                    + " digits, '_' and '-' of a supplier field name written without brackets, and compares such names"
                    + " without case, '-' and '_'; a name in brackets is bound as written, in YAML quoted:"
                    + " \"[Version Nr]\": source_version; docs/suppliers.md, Onboarding a supplier)");
        }
    }

    /** What is wrong with the supplier field names among {@code written} (property as written → value), each fix. */
    static List<String> refusals(Map<String, ?> written) {
        List<String> refused = new ArrayList<>();
        // the names bound as written, by supplier and as Spring Boot compares them: names alike there get one value
        Map<String, Map<String, Set<String>>> compared = new LinkedHashMap<>();
        written.forEach((property, value) -> {
            List<Part> parts = parts(property);
            if (!isFieldName(parts)) {
                return;
            }
            String key = property.substring(parts.get(PATH.size()).start());
            List<Part> keyParts = parts.subList(PATH.size(), parts.size());
            if (keyParts.size() == 1 && keyParts.get(0).bracketed()) {
                return;
            }
            if (!keyParts.stream().allMatch(SupplierFieldNames::kept)) {
                String bound = relaxed(key);
                refused.add(property + "=" + value + ": Spring Boot "
                        + (bound.isEmpty() ? "cannot bind this name" : "binds this name as '" + bound + "'")
                        + ", which no column '" + key + "' matches; write it in brackets: "
                        + inBrackets(property, parts));
                return;
            }
            compared.computeIfAbsent(parts.get(2).text(), code -> new LinkedHashMap<>())
                    .computeIfAbsent(key.toLowerCase(Locale.ROOT).replaceAll("[-_]", ""), u -> new LinkedHashSet<>())
                    .add(property);
        });
        compared.values().forEach(names -> names.values().forEach(properties -> {
            // names that differ only in case are refused by the mapping itself: they match one column
            if (properties.stream().map(p -> p.toLowerCase(Locale.ROOT)).distinct().count() > 1) {
                refused.add(String.join(" and ", properties) + ": Spring Boot takes them for one name and gives each"
                        + " the value of one of them; write them in brackets: " + properties.stream()
                                .map(p -> inBrackets(p, parts(p))).collect(Collectors.joining(" and ")));
            }
        }));
        return refused;
    }

    /** Whether the property is one of {@code ingestor.suppliers.<CODE>.mapping.fields}, however it is spelt. */
    private static boolean isFieldName(List<Part> parts) {
        if (parts.size() <= PATH.size()) {
            return false;
        }
        for (int i = 0; i < PATH.size(); i++) {
            // the fixed parts as Spring Boot compares them: without case, '-' and '_'
            String part = parts.get(i).text().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
            if (!PATH.get(i).isEmpty() && (parts.get(i).bracketed() || !PATH.get(i).equals(part))) {
                return false;
            }
        }
        return true;
    }

    private static boolean kept(Part part) {
        return !part.bracketed() && KEPT.matcher(part.text()).matches() && !UNDERSCORES.matcher(part.text()).matches();
    }

    /** The key as Spring Boot binds it, for the message. */
    private static String relaxed(String key) {
        ConfigurationPropertyName name = ConfigurationPropertyName.adapt(key, '.');
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < name.getNumberOfElements(); i++) {
            parts.add(name.getElement(i, ConfigurationPropertyName.Form.ORIGINAL));
        }
        return String.join(".", parts);
    }

    /** {@code property} with its whole key, as written, in brackets. */
    private static String inBrackets(String property, List<Part> parts) {
        int start = parts.get(PATH.size()).start();
        String map = property.substring(0, start);
        return (map.endsWith(".") ? map : map + ".") + "[" + property.substring(start) + "]";
    }

    /** A part of a property name as written, from {@code start}; a bracketed part keeps its brackets here. */
    record Part(String text, int start) {
        boolean bracketed() {
            return text.length() >= 2 && text.charAt(0) == '[' && text.charAt(text.length() - 1) == ']';
        }
    }

    /**
     * The parts of a property name as written, split as Spring Boot splits it: at a dot outside brackets and around a
     * bracketed part (brackets may nest).
     */
    static List<Part> parts(String property) {
        List<Part> parts = new ArrayList<>();
        int start = 0;
        int depth = 0;
        for (int i = 0; i < property.length(); i++) {
            char ch = property.charAt(i);
            if (depth == 0 && ch == '.') {
                if (i == 0 || property.charAt(i - 1) != ']') {
                    parts.add(new Part(property.substring(start, i), start));
                }
                start = i + 1;
            } else if (ch == '[') {
                if (depth == 0 && i > start) {
                    parts.add(new Part(property.substring(start, i), start));
                    start = i;
                }
                depth++;
            } else if (ch == ']' && depth > 0) {
                depth--;
                if (depth == 0) {
                    parts.add(new Part(property.substring(start, i + 1), start));
                    start = i + 1;
                }
            }
        }
        if (start < property.length() || property.endsWith(".")) {
            parts.add(new Part(property.substring(start), start));
        }
        return parts;
    }
}
