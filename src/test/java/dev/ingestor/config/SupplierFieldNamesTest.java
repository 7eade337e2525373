package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/**
 * A supplier field name Spring Boot would bind as another name refuses the start, naming the property as written and
 * its bracketed form; a name in brackets is bound as written. Checked in a small application context with the YAML
 * as the app reads it, and the rule against Spring Boot's own binding, name by name.
 */
@Timeout(60)
class SupplierFieldNamesTest {

    private static final String FIELDS = "ingestor.suppliers.ACME.mapping.fields.";

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(IngestorProperties.class)
    @Import(SupplierFieldNames.class)
    static class Suppliers {
    }

    /** The app's binding of {@code yaml}, read as the app reads application.yaml, with the start check. */
    private static ApplicationContextRunner withYaml(String yaml) {
        return new ApplicationContextRunner().withUserConfiguration(Suppliers.class)
                .withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(yaml(yaml)));
    }

    private static PropertySource<?> yaml(String yaml) {
        try {
            return new YamlPropertySourceLoader()
                    .load("application.yaml", new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8))).get(0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void anUnbracketedNameSpringBootWouldChangeRefusesTheStartNamingThePropertyAndItsFix() {
        withYaml("""
                ingestor:
                  suppliers:
                    ACME:
                      mapping:
                        fields:
                          "Version Nr": source_version
                          Artikelnummer: sku
                """).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("ingestor.suppliers.ACME.mapping.fields.Version Nr=source_version:"
                            + " Spring Boot binds this name as 'VersionNr', which no column 'Version Nr'"
                            + " matches; write it in brackets: ingestor.suppliers.ACME.mapping.fields"
                            + ".[Version Nr]")
                    .hasMessageNotContaining("Artikelnummer");
        });
    }

    @Test
    void everyChangedNameOfEverySupplierIsNamedAtOnce() {
        withYaml("""
                ingestor:
                  suppliers:
                    ACME:
                      mapping:
                        fields:
                          Größe: sku
                          "Stück/Menge": quantity
                    HANSA:
                      mapping:
                        fields:
                          "Art.-Nr": sku
                """).run(context -> assertThat(context.getStartupFailure())
                .hasMessageContaining("ingestor.suppliers.ACME.mapping.fields.Größe=sku: Spring Boot binds this name"
                        + " as 'Gre'")
                .hasMessageContaining("write it in brackets: ingestor.suppliers.ACME.mapping.fields.[Größe]")
                .hasMessageContaining("binds this name as 'StckMenge'")
                .hasMessageContaining("ingestor.suppliers.ACME.mapping.fields.[Stück/Menge]")
                .hasMessageContaining("ingestor.suppliers.HANSA.mapping.fields.Art.-Nr=sku: Spring Boot binds this"
                        + " name as 'Art.Nr', which no column 'Art.-Nr' matches; write it in brackets:"
                        + " ingestor.suppliers.HANSA.mapping.fields.[Art.-Nr]"));
    }

    @Test
    void bracketedNamesStartAndAreBoundAsWritten() {
        withYaml("""
                ingestor:
                  suppliers:
                    ACME:
                      mapping:
                        fields:
                          "[Version Nr]": source_version
                          "[Größe]": sku
                          "[Art.-Nr]": source_id
                          "[Menge [kg]]": quantity
                          Liefer-Termin: delivery_date
                          Pos_Nr: deleted
                """).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(IngestorProperties.class).getSuppliers().get("ACME").getMapping()
                    .getFields()).containsExactlyInAnyOrderEntriesOf(Map.of("Version Nr", "source_version",
                            "Größe", "sku", "Art.-Nr", "source_id", "Menge [kg]", "quantity",
                            "Liefer-Termin", "delivery_date", "Pos_Nr", "deleted"));
        });
    }

    /** Names that differ only in '-' and '_' are one name to Spring Boot, and each gets the value of one of them. */
    @Test
    void namesSpringBootTakesForOneAreRefusedToo() {
        Map<String, Object> twoNames = new LinkedHashMap<>();
        twoNames.put(FIELDS + "Art-Nr", "sku");
        twoNames.put(FIELDS + "Art_Nr", "source_id");
        assertThat(bound(twoNames)).as("what Spring Boot does with them").containsOnlyKeys("Art-Nr", "Art_Nr")
                .satisfies(fields -> assertThat(fields.get("Art-Nr")).isEqualTo(fields.get("Art_Nr")));
        assertThat(SupplierFieldNames.refusals(twoNames)).containsExactly("ingestor.suppliers.ACME.mapping.fields"
                + ".Art-Nr and ingestor.suppliers.ACME.mapping.fields.Art_Nr: Spring Boot takes them for one name and"
                + " gives each the value of one of them; write them in brackets: ingestor.suppliers.ACME.mapping"
                + ".fields.[Art-Nr] and ingestor.suppliers.ACME.mapping.fields.[Art_Nr]");

        Map<String, Object> bracketed = Map.of(FIELDS + "[Art-Nr]", "sku", FIELDS + "[Art_Nr]", "source_id");
        assertThat(SupplierFieldNames.refusals(bracketed)).isEmpty();
        assertThat(bound(bracketed)).isEqualTo(Map.of("Art-Nr", "sku", "Art_Nr", "source_id"));
        // differing in case only: the mapping refuses them itself, as one field mapped twice (names match in any case)
        assertThat(SupplierFieldNames.refusals(Map.of(FIELDS + "Menge", "quantity", FIELDS + "MENGE", "sku")))
                .isEmpty();
        // the same name in two suppliers is two names
        assertThat(SupplierFieldNames.refusals(Map.of(FIELDS + "Art-Nr", "sku",
                "ingestor.suppliers.HANSA.mapping.fields.Art_Nr", "sku"))).isEmpty();
    }

    /**
     * The rule is Spring Boot's: a name is refused exactly when Spring Boot binds it as another name (or not at all),
     * for every name of up to three characters of letters, a digit, '_', '-', '.', a space and a non-ASCII letter,
     * and for names suppliers write; and the bracketed form the refusal names is bound as written.
     */
    @Test
    void aNameIsRefusedExactlyWhenSpringBootWouldBindItAsAnother() {
        List<String> names = new ArrayList<>(List.of("Version Nr", "Größe", "Stück/Menge", "Art.-Nr", "Pos_Nr",
                "Liefer-Termin", "lineNo", "Menge (kg)", "Menge [kg]", "a[0]", "x]y", "[Version Nr]", "[Menge [kg]]",
                "[Art.-Nr]", "[a]b", "2026", "-Nr", "Nr-", "__x", "Menge\tkg"));
        List<String> level = List.of("");
        for (int length = 1; length <= 3; length++) {
            List<String> longer = new ArrayList<>();
            for (String name : level) {
                for (char c : "aZ0_-. é".toCharArray()) {
                    longer.add(name + c);
                }
            }
            names.addAll(longer);
            level = longer;
        }
        List<String> disagreements = new ArrayList<>();
        for (String name : names) {
            String property = FIELDS + name;
            boolean refused = !SupplierFieldNames.refusals(Map.of(property, "sku")).isEmpty();
            String meant = name.matches("\\[[^\\[\\]]*(\\[[^\\[\\]]*][^\\[\\]]*)*]")
                    ? name.substring(1,
                            name.length() - 1)
                    : name;
            boolean changed = !Map.of(meant, "sku").equals(bound(Map.of(property, "sku")));
            if (refused != changed) {
                disagreements.add("'" + name + "': refused " + refused + ", changed by Spring Boot " + changed);
            }
            if (refused && !name.contains("[") && !name.contains("]")) {
                String fix = FIELDS + "[" + name + "]";
                assertThat(SupplierFieldNames.refusals(Map.of(property, "sku")).get(0)).contains(fix);
                assertThat(SupplierFieldNames.refusals(Map.of(fix, "sku"))).as(fix).isEmpty();
                assertThat(bound(Map.of(fix, "sku"))).as(fix).isEqualTo(Map.of(name, "sku"));
            }
        }
        assertThat(disagreements).isEmpty();
    }

    @Test
    void onlySupplierFieldNamesAreCheckedInAnySpellingOfTheirPath() {
        assertThat(SupplierFieldNames.refusals(Map.of("logging.level.Version Nr", "INFO", FIELDS + "[Version Nr]",
                "source_version", "ingestor.suppliers.ACME.mapping.fields[Größe]", "sku",
                "ingestor.suppliers.ACME.mapping.ignore[0]", "Stück/Menge",
                "ingestor.suppliers.ACME.mapping.defaults.quantity", "1",
                "ingestor.suppliers.ACME.mapping.fieldsx.Version Nr", "sku"))).isEmpty();
        assertThat(SupplierFieldNames.refusals(Map.of("Ingestor.Suppliers.[AC ME].Mapping.Fields.Version Nr",
                "source_version"))).singleElement().asString()
                .contains("write it in brackets: Ingestor.Suppliers.[AC ME].Mapping.Fields.[Version Nr]");
    }

    /** {@code ingestor.suppliers.ACME.mapping.fields} as the app binds {@code properties}; empty when it cannot. */
    private static Map<String, String> bound(Map<String, ?> properties) {
        try {
            Binder binder = new Binder(
                    ConfigurationPropertySources.from(new MapPropertySource("test", new LinkedHashMap<>(properties))));
            return binder.bind("ingestor", Bindable.of(IngestorProperties.class))
                    .map(ingestor -> ingestor.getSuppliers().get("ACME"))
                    .map(supplier -> supplier.getMapping().getFields()).orElse(Map.of());
        } catch (RuntimeException e) {
            return Map.of("binding failed: " + e.getMessage(), "");
        }
    }
}
