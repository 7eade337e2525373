package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import dev.ingestor.intake.IntakeSettings;
import dev.ingestor.job.PipelineSettings;
import dev.ingestor.notification.NotificationSettings;
import dev.ingestor.operations.RouteTimings;
import dev.ingestor.outbox.OutboxSettings;
import dev.ingestor.support.BoundSettings;
import dev.ingestor.web.SpringSettingsFromIngestor;
import org.apache.commons.logging.Log;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.util.ClassUtils;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every {@code ingestor.*} property is a typed property of one settings class, listed in the metadata the
 * configuration processor writes (what IDEs complete, and what docs/configuration.md is made from) with the
 * default its class declares; application.yaml repeats none of them; and the former names are still read.
 */
@Timeout(60)
class ConfigurationMetadataTest {

    private static Map<String, String> applicationYaml;
    private static Map<String, JsonNode> metadata;
    /** Each settings class by its prefix, as the processor found them. */
    private static Map<String, Class<?>> groups;

    @BeforeAll
    static void load() throws Exception {
        applicationYaml = new LinkedHashMap<>();
        for (PropertySource<?> source : new YamlPropertySourceLoader().load("application",
                new ClassPathResource("application.yaml"))) {
            EnumerablePropertySource<?> yaml = (EnumerablePropertySource<?>) source;
            for (String name : yaml.getPropertyNames()) {
                if (name.startsWith("ingestor.")) {
                    applicationYaml.put(name, String.valueOf(yaml.getProperty(name)));
                }
            }
        }
        metadata = new HashMap<>();
        groups = new LinkedHashMap<>();
        try (InputStream in = new ClassPathResource("META-INF/spring-configuration-metadata.json").getInputStream()) {
            JsonNode root = new JsonMapper().readTree(in);
            for (JsonNode property : root.get("properties")) {
                metadata.put(property.get("name").asString(), property);
            }
            for (JsonNode group : root.get("groups")) {
                Class<?> type = ClassUtils.forName(group.get("type").asString(), null);
                if (group.get("name").asString().startsWith("ingestor")
                        && type.isAnnotationPresent(ConfigurationProperties.class)) {
                    groups.put(group.get("name").asString(), type);
                }
            }
        }
    }

    @Test
    void applicationYamlSetsOnlyTheShippedDemoUnderIngestorAndEachOfItIsInTheMetadata() {
        assertThat(applicationYaml).isNotEmpty()
                .allSatisfy((name, value) -> assertThat(name)
                        .as("a default of ours belongs to its settings class, not to application.yaml")
                        .matches("ingestor\\.(admin\\.api-key-sha256|suppliers\\..*)"));
        Set<String> missing = new TreeSet<>();
        for (String name : applicationYaml.keySet()) {
            // a supplier's keys sit under its code, which the metadata cannot know: bound below instead
            String key = name.startsWith("ingestor.suppliers.") ? "ingestor.suppliers" : name;
            if (!metadata.containsKey(key)) {
                missing.add(name);
            }
        }
        assertThat(missing).as("ingestor.* keys of application.yaml without a bound property").isEmpty();
    }

    @Test
    void everyIngestorPropertyHasADescriptionAndNoneOfApplicationYamlIsDeprecated() {
        List<String> undescribed = metadata.values().stream()
                .filter(p -> p.get("name").asString().startsWith("ingestor.") && !p.hasNonNull("description"))
                .map(p -> p.get("name").asString()).sorted().collect(Collectors.toList());
        assertThat(undescribed).isEmpty();
        assertThat(applicationYaml.keySet())
                .noneMatch(name -> metadata.containsKey(name) && metadata.get(name).path("deprecated").asBoolean());
    }

    @Test
    void everyIngestorPropertyOfApplicationYamlBindsWithNothingLeftOver() {
        assertThat(groups).containsKeys("ingestor", "ingestor.intake", "ingestor.intake.redelivery",
                "ingestor.pipeline",
                "ingestor.pipeline.validation.redelivery", "ingestor.pipeline.processing.redelivery", "ingestor.outbox",
                "ingestor.notifications", "ingestor.http", "ingestor.http.limits", "ingestor.kafka",
                "ingestor.retention",
                "ingestor.database", "ingestor.admin", "ingestor.metrics", "ingestor.embedded.postgres",
                "ingestor.embedded.kafka");
        IngestorProperties properties = null;
        for (Map.Entry<String, Class<?>> group : groups.entrySet()) {
            Object bound = bindStrictly(applicationYaml, group.getKey(), group.getValue());
            if (bound instanceof IngestorProperties root) {
                properties = root;
            }
        }
        assertThat(properties).isNotNull();
        assertThat(properties.getSuppliers()).containsKeys("ACME", "GLOBEX");
    }

    @Test
    void theMetadataDefaultsAreTheDefaultsTheSettingsClassesBind() throws Exception {
        int compared = 0;
        for (JsonNode property : metadata.values()) {
            String name = property.get("name").asString();
            if (!name.startsWith("ingestor.") || !property.has("defaultValue") || !property.has("sourceType")) {
                continue;
            }
            Class<?> settings = ClassUtils.forName(property.get("sourceType").asString(), null);
            String prefix = settings.getAnnotation(ConfigurationProperties.class).prefix();
            Object defaults = BoundSettings.defaults(settings);
            String field = kebabToCamel(name.substring(prefix.length() + 1));
            Object bound = settings.isRecord()
                    ? settings.getMethod(field).invoke(defaults)
                    : new BeanWrapperImpl(defaults).getPropertyValue(field);
            Class<?> type = ClassUtils.forName(property.get("type").asString(), null);
            // a Path is compared as written: bound, a relative name that is on the classpath becomes that folder
            Object documented = type == java.nio.file.Path.class
                    ? java.nio.file.Path.of(property.get("defaultValue").asString())
                    : new Binder(
                            new MapConfigurationPropertySource(Map.of("x", property.get("defaultValue").asString())))
                            .bind("x", Bindable.of(ClassUtils.resolvePrimitiveIfNecessary(type)))
                            .get();
            assertThat(bound).as(name + ": what the metadata says and what its class binds").isEqualTo(documented);
            compared++;
        }
        assertThat(compared).isGreaterThan(70);
    }

    @Test
    void theDefaultsKeepTheirMeaning() {
        IntakeRedelivery intake = BoundSettings.defaults(IntakeRedelivery.class);
        assertThat(intake.delay()).isEqualTo(Duration.ofSeconds(1));
        assertThat(intake.maximumDelay()).isEqualTo(Duration.ofSeconds(30));
        assertThat(BoundSettings.defaults(PipelineSettings.class).getPollInterval()).isEqualTo(Duration.ofMillis(500));
        // validation 3 tries 60 s apart, processing 3 tries 120 s apart, both fixed
        StageRedelivery validation = BoundSettings.defaults(ValidationRedelivery.class);
        assertThat(validation.maximumRedeliveries()).isEqualTo(2);
        assertThat(validation.delay()).isEqualTo(Duration.ofSeconds(60));
        assertThat(validation.backoffMultiplier()).isEqualTo(1.0);
        StageRedelivery processing = BoundSettings.defaults(ProcessingRedelivery.class);
        assertThat(processing.maximumRedeliveries()).isEqualTo(2);
        assertThat(processing.delay()).isEqualTo(Duration.ofSeconds(120));
        assertThat(processing.backoffMultiplier()).isEqualTo(1.0);
        OutboxSettings outbox = BoundSettings.defaults(OutboxSettings.class);
        assertThat(outbox.getPollInterval()).isEqualTo(Duration.ofMillis(200));
        assertThat(outbox.getKafkaTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(outbox.getKafkaDeliveryTimeout()).isEqualTo(Duration.ofSeconds(15));
        RetentionSettings retention = BoundSettings.defaults(RetentionSettings.class);
        assertThat(retention.getJobMaxAge()).isEqualTo(Duration.ofDays(365));
        assertThat(retention.getOutboxMaxAge()).isEqualTo(Duration.ofDays(7));
    }

    @Test
    void plainNumbersAreStillMilliseconds() {
        Map<String, String> values = Map.of(
                "ingestor.intake.redelivery.delay", "1000",
                "ingestor.pipeline.poll-interval", "250",
                "ingestor.outbox.poll-interval", "200");
        assertThat(BoundSettings.bind(IntakeRedelivery.class, values).delay()).isEqualTo(Duration.ofSeconds(1));
        assertThat(BoundSettings.bind(PipelineSettings.class, values).getPollInterval())
                .isEqualTo(Duration.ofMillis(250));
        assertThat(BoundSettings.bind(OutboxSettings.class, values).getPollInterval())
                .isEqualTo(Duration.ofMillis(200));
    }

    @Test
    void theFormerNamesBindToTheNewPropertiesOverTheirDefaults() {
        Map<String, String> values = Map.of(
                "ingestor.retention.jobs", "30d",
                "ingestor.retention.outbox", "2d",
                "ingestor.outbox.kafka-timeout-ms", "2500",
                "ingestor.outbox.kafka-delivery-timeout-ms", "9000");
        RetentionSettings retention = BoundSettings.bind(RetentionSettings.class, values);
        OutboxSettings outbox = BoundSettings.bind(OutboxSettings.class, values);
        assertThat(retention.getJobMaxAge()).isEqualTo(Duration.ofDays(30));
        assertThat(retention.getOutboxMaxAge()).isEqualTo(Duration.ofDays(2));
        assertThat(outbox.getKafkaTimeout()).isEqualTo(Duration.ofMillis(2500));
        assertThat(outbox.getKafkaDeliveryTimeout()).isEqualTo(Duration.ofSeconds(9));

        RouteTimings timings = timings(values);
        assertThat(timings.kafkaTimeout()).isEqualTo(2500);
        assertThat(timings.kafkaDeliveryTimeout()).isEqualTo(9000);

        for (String former : List.of("ingestor.retention.jobs", "ingestor.retention.outbox",
                "ingestor.outbox.kafka-timeout-ms", "ingestor.outbox.kafka-delivery-timeout-ms",
                "ingestor.pipeline.redelivery.maximum-redeliveries", "ingestor.pipeline.redelivery.delay",
                "ingestor.pipeline.redelivery.maximum-delay")) {
            JsonNode property = metadata.get(former);
            assertThat(property).as(former).isNotNull();
            assertThat(property.path("deprecation").path("replacement").asString()).as(former).isNotEmpty();
            assertThat(metadata).containsKey(property.path("deprecation").path("replacement").asString());
        }
    }

    @Test
    void everyDeprecatedNameIsStillReadAndEveryNameStillReadIsDeclaredDeprecated() {
        Set<String> read = new TreeSet<>(RenamedProperties.RENAMED.keySet());
        for (String key : List.of("maximum-redeliveries", "delay", "maximum-delay")) {
            read.add(RenamedProperties.SHARED_REDELIVERY + key);
        }
        Set<String> deprecated = metadata.values().stream()
                .filter(p -> p.get("name").asString().startsWith("ingestor.") && p.has("deprecation"))
                .map(p -> p.get("name").asString()).collect(Collectors.toCollection(TreeSet::new));
        // the embedded pool's former size names a spring.* property it is read over: EmbeddedPostgresConfiguration
        deprecated.remove("ingestor.embedded.postgres.pool-size");
        assertThat(deprecated).isEqualTo(read);
        for (String name : deprecated) {
            JsonNode deprecation = metadata.get(name).get("deprecation");
            assertThat(deprecation.path("level").asString()).as(name + ": still read, so a warning")
                    .isEqualTo("warning");
            assertThat(deprecation.path("since").asString()).as(name).isNotEmpty();
            assertThat(deprecation.path("reason").asString()).as(name)
                    .contains("until " + RenamedProperties.REMOVED_IN);
        }
    }

    @Test
    void atStartAFormerNameIsReadAsItsReplacementWithAWarningAndASetReplacementWins() {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("operator", Map.of(
                "ingestor.retention.jobs", "30d",
                "ingestor.retention.outbox", "2d",
                "ingestor.retention.outbox-max-age", "3d")));
        List<String> warnings = new ArrayList<>();
        Log log = (Log) Proxy.newProxyInstance(Log.class.getClassLoader(), new Class<?>[] {Log.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("warn")) {
                        warnings.add(String.valueOf(args[0]));
                    }
                    return method.getReturnType() == boolean.class ? Boolean.TRUE : null;
                });
        new RenamedProperties(destination -> log).postProcessEnvironment(environment, null);
        RetentionSettings retention = Binder.get(environment).bind("ingestor.retention", RetentionSettings.class).get();
        assertThat(retention.getJobMaxAge()).isEqualTo(Duration.ofDays(30));
        assertThat(retention.getOutboxMaxAge()).isEqualTo(Duration.ofDays(3));
        assertThat(warnings).containsExactlyInAnyOrder(
                "ingestor.retention.jobs is read as ingestor.retention.job-max-age=30d: set ingestor.retention.job-max-age"
                        + " instead (ingestor.retention.jobs is deprecated and no longer read from 1.0.0)",
                "ingestor.retention.outbox is ignored: ingestor.retention.outbox-max-age is set, which replaces it"
                        + " (ingestor.retention.outbox is deprecated and no longer read from 1.0.0)");
        assertThat(SpringFactoriesLoader.forDefaultResourceLocation().load(EnvironmentPostProcessor.class,
                SpringFactoriesLoader.ArgumentResolver.of(org.springframework.boot.logging.DeferredLogFactory.class,
                        destination -> log)))
                .extracting(Object::getClass).contains(RenamedProperties.class, SpringSettingsFromIngestor.class);
    }

    @Test
    void theFormerEmbeddedPoolSizeNamesTheOnePoolSizeOfEveryDatabase() {
        assertThat(
                metadata.get("ingestor.embedded.postgres.pool-size").path("deprecation").path("replacement").asString())
                .isEqualTo("spring.datasource.hikari.maximum-pool-size");
        assertThat(BoundSettings.defaults(DatabaseSettings.class).getStatementTimeout())
                .isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void theFormerSharedPipelineRedeliveryStillBindsOverBothStagesWithItsDoubling() {
        Map<String, String> values = Map.of(
                "ingestor.pipeline.redelivery.maximum-redeliveries", "7",
                "ingestor.pipeline.redelivery.delay", "500ms");
        for (StageRedelivery stage : List.of(BoundSettings.bind(ValidationRedelivery.class, values),
                BoundSettings.bind(ProcessingRedelivery.class, values))) {
            assertThat(stage.maximumRedeliveries()).isEqualTo(7);
            assertThat(stage.delay()).isEqualTo(Duration.ofMillis(500));
            assertThat(stage.maximumDelay()).as("the former default cap").isEqualTo(Duration.ofMinutes(5));
            assertThat(stage.backoffMultiplier()).isEqualTo(2.0);
        }
        // only a count set the former way: each stage keeps its own fixed delay
        values = Map.of("ingestor.pipeline.redelivery.maximum-redeliveries", "4");
        ProcessingRedelivery processing = BoundSettings.bind(ProcessingRedelivery.class, values);
        assertThat(processing.maximumRedeliveries()).isEqualTo(4);
        assertThat(processing.delay()).isEqualTo(Duration.ofSeconds(120));
        assertThat(processing.backoffMultiplier()).isEqualTo(1.0);
        assertThat(BoundSettings.bind(ValidationRedelivery.class, values).delay()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void aStageBackoffMultiplierBelowOneIsRefused() {
        assertThatThrownBy(() -> BoundSettings.bind(ProcessingRedelivery.class,
                Map.of("ingestor.pipeline.processing.redelivery.backoff-multiplier", "0.5")))
                .hasStackTraceContaining("backoff-multiplier must be at least 1");
    }

    @Test
    void aCountOutOfItsRangeIsRefusedNamingTheProperty() {
        assertThatThrownBy(
                () -> BoundSettings.bind(PipelineSettings.class, Map.of("ingestor.pipeline.batch-size", "0")))
                .hasStackTraceContaining("ingestor.pipeline.batch-size");
        assertThatThrownBy(
                () -> BoundSettings.bind(HttpLimits.class, Map.of("ingestor.http.limits.max-concurrent-per-key", "-1")))
                .hasStackTraceContaining("ingestor.http.limits.max-concurrent-per-key");
    }

    /** A lease written as a plain number (600, meant as seconds) is 600 ms to Spring: refused, naming the property. */
    @Test
    void aLeaseShorterThanThreeSecondsIsRefusedNamingTheProperty() {
        assertThatThrownBy(() -> BoundSettings.bind(PipelineSettings.class, Map.of("ingestor.pipeline.lease", "600")))
                .hasStackTraceContaining("ingestor.pipeline.lease");
        assertThatThrownBy(() -> BoundSettings.bind(dev.ingestor.web.HttpSettings.class,
                Map.of("ingestor.http.in-flight-lease", "600")))
                .hasStackTraceContaining("ingestor.http.in-flight-lease");
        assertThat(BoundSettings.bind(PipelineSettings.class, Map.of("ingestor.pipeline.lease", "3s")).getLease())
                .isEqualTo(Duration.ofSeconds(3));
    }

    /**
     * A poll or timer period of 0 (or a plain 1, read as 1 ms) made the workers and relays claim back to back and
     * housekeeping run once, never again; a key kept for no time let every retry run again; a retention batch past
     * PostgreSQL's lock table failed every run. Refused at start, naming the property.
     */
    @Test
    void periodsAndBatchesOutOfTheirRangeAreRefusedNamingTheProperty() {
        Map<Class<?>, List<String>> refused = Map.of(
                PipelineSettings.class, List.of("ingestor.pipeline.poll-interval"),
                OutboxSettings.class, List.of("ingestor.outbox.poll-interval", "ingestor.outbox.vacuum-check-interval"),
                IntakeSettings.class, List.of("ingestor.intake.stray-scan-interval"),
                NotificationSettings.class,
                List.of("ingestor.notifications.poll-interval", "ingestor.notifications.relay-check-interval"),
                RetentionSettings.class, List.of("ingestor.retention.interval"),
                dev.ingestor.wakeup.WakeupSettings.class,
                List.of("ingestor.wakeups.reconnect-delay", "ingestor.wakeups.reconnect-max-delay",
                        "ingestor.wakeups.alive-check-interval"),
                dev.ingestor.web.HttpSettings.class, List.of("ingestor.http.idempotency-ttl"));
        refused.forEach((type, names) -> names.forEach(name -> {
            assertThatThrownBy(() -> BoundSettings.bind(type, Map.of(name, "0"))).as(name)
                    .hasStackTraceContaining(name);
            assertThat(BoundSettings.bind(type, Map.of(name, "1s"))).as(name).isNotNull();
        }));
        assertThatThrownBy(() -> BoundSettings.bind(RetentionSettings.class,
                Map.of("ingestor.retention.batch-size", "10000")))
                .hasStackTraceContaining("ingestor.retention.batch-size");
        // a supplier's: its folder looked at without a pause, its SFTP server (the supplier's) logged into as fast
        for (String part : List.of("file-drop", "sftp")) {
            String name = "ingestor.suppliers.ACME." + part + ".poll-interval";
            assertThatThrownBy(() -> BoundSettings.bind(IngestorProperties.class, Map.of(name, "0"))).as(name)
                    .hasStackTraceContaining("ingestor.suppliers.acme." + part)
                    .hasStackTraceContaining("'pollInterval': rejected value [PT0S]");
            assertThat(BoundSettings.bind(IngestorProperties.class, Map.of(name, "1s")).getSuppliers().get("ACME"))
                    .as(name).isNotNull();
        }
        assertThatThrownBy(() -> BoundSettings.bind(IngestorProperties.class,
                Map.of("ingestor.suppliers.ACME.sftp.poll-interval", "50ms")))
                .hasStackTraceContaining("'pollInterval': rejected value [PT0.05S]");
    }

    /**
     * A webhook timeout of 0 (often meant as "no limit") is refused by the JDK's HTTP client: at read-timeout every
     * attempt failed and every notification was given up, at connect-timeout the start failed without naming the
     * property. A plain 10 (meant as seconds) is 10 ms, which no receiver across a network answers within. Refused
     * at start, naming the property.
     */
    @Test
    void webhookTimeoutsTheHttpClientRefusesAreRefusedNamingTheProperty() {
        for (String name : List.of("ingestor.notifications.connect-timeout", "ingestor.notifications.read-timeout")) {
            for (String value : List.of("0", "-1s", "10")) {
                assertThatThrownBy(() -> BoundSettings.bind(NotificationSettings.class, Map.of(name, value)))
                        .as(name + "=" + value).hasStackTraceContaining(name);
            }
            assertThat(BoundSettings.bind(NotificationSettings.class, Map.of(name, "100ms"))).as(name).isNotNull();
        }
    }

    /** Kafka refuses a delivery.timeout.ms under request.timeout.ms + linger.ms: the relay published nothing. */
    @Test
    void relayTimeoutsKafkasProducerWouldRefuseAreRefusedAtStart() {
        assertThatThrownBy(() -> BoundSettings.bind(dev.ingestor.outbox.OutboxSettings.class,
                Map.of("ingestor.outbox.kafka-timeout", "15s")))
                .hasStackTraceContaining("ingestor.outbox.kafka-delivery-timeout must be at least");
        assertThatThrownBy(() -> BoundSettings.bind(dev.ingestor.outbox.OutboxSettings.class,
                Map.of("ingestor.outbox.kafka-timeout", "0s")))
                .hasStackTraceContaining("ingestor.outbox.kafka-timeout");
        assertThat(BoundSettings.bind(dev.ingestor.outbox.OutboxSettings.class,
                Map.of("ingestor.outbox.kafka-timeout", "10s", "ingestor.outbox.kafka-delivery-timeout", "10005ms"))
                .getKafkaTimeout()).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void theRoutesGetMillisecondsOfTheTypedValues() {
        RouteTimings timings = timings(Map.of(
                "ingestor.pipeline.validation.redelivery.delay", "2m",
                "ingestor.pipeline.processing.redelivery.maximum-delay", "1h"));
        assertThat(timings.intakeRedeliveryDelay()).isEqualTo(1000);
        assertThat(timings.intakeRedeliveryMaximumDelay()).isEqualTo(30_000);
        assertThat(timings.pipelinePollInterval()).isEqualTo(500);
        assertThat(timings.validationRedeliveryDelay()).isEqualTo(120_000);
        assertThat(timings.validationRedeliveryMaximumDelay()).isEqualTo(60_000);
        assertThat(timings.processingRedeliveryDelay()).isEqualTo(120_000);
        assertThat(timings.processingRedeliveryMaximumDelay()).isEqualTo(3_600_000);
        assertThat(timings.outboxPollInterval()).isEqualTo(200);
        assertThat(timings.kafkaTimeout()).isEqualTo(5000);
        assertThat(timings.kafkaDeliveryTimeout()).isEqualTo(15_000);
        assertThat(timings.strayScanInterval()).isEqualTo(30_000);
        assertThat(timings.retentionInterval()).isEqualTo(3_600_000);
    }

    /**
     * The route timings of the settings classes' defaults with {@code values} on top, as an operator's configuration.
     */
    private static RouteTimings timings(Map<String, String> values) {
        return new RouteTimings(BoundSettings.bind(IntakeSettings.class, values),
                BoundSettings.bind(IntakeRedelivery.class, values),
                BoundSettings.bind(PipelineSettings.class, values),
                BoundSettings.bind(ValidationRedelivery.class, values),
                BoundSettings.bind(ProcessingRedelivery.class, values),
                BoundSettings.bind(OutboxSettings.class, values),
                BoundSettings.bind(NotificationSettings.class, values),
                BoundSettings.bind(RetentionSettings.class, values));
    }

    /**
     * {@code prefix}'s keys of {@code values}, bound to {@code type}; the keys of a settings class below it are its
     * own.
     */
    private static <T> T bindStrictly(Map<String, String> values, String prefix, Class<T> type) {
        Map<String, String> own = new LinkedHashMap<>();
        values.forEach((name, value) -> {
            boolean below = groups.keySet().stream().anyMatch(other -> other.length() > prefix.length()
                    && other.startsWith(prefix + ".") && name.startsWith(other + "."));
            // an empty value (raw-dir: "") means unset: it binds to nothing, which the strict handler would report
            if (name.startsWith(prefix + ".") && !below && !value.isEmpty()) {
                own.put(name, value);
            }
        });
        return new Binder(new MapConfigurationPropertySource(own))
                .bindOrCreate(prefix, Bindable.of(type), new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
    }

    private static String kebabToCamel(String name) {
        StringBuilder camel = new StringBuilder();
        for (String part : name.split("-")) {
            camel.append(camel.length() == 0 ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
        }
        return camel.toString();
    }
}
