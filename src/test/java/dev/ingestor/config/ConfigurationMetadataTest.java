package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import dev.ingestor.embedded.EmbeddedKafkaProperties;
import dev.ingestor.embedded.EmbeddedPostgresProperties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ClassPathResource;

/**
 * Every {@code ingestor.*} property of application.yaml is bound to a typed property and listed in the metadata
 * the configuration processor writes (what IDEs complete), and the former names still bind.
 */
@Timeout(60)
class ConfigurationMetadataTest {

    private static Map<String, String> ingestorDefaults;
    private static Map<String, JsonNode> metadata;

    @BeforeAll
    static void load() throws Exception {
        ingestorDefaults = new LinkedHashMap<>();
        for (PropertySource<?> source : new YamlPropertySourceLoader().load("application",
                new ClassPathResource("application.yaml"))) {
            EnumerablePropertySource<?> yaml = (EnumerablePropertySource<?>) source;
            for (String name : yaml.getPropertyNames()) {
                if (name.startsWith("ingestor.")) {
                    ingestorDefaults.put(name, String.valueOf(yaml.getProperty(name)));
                }
            }
        }
        metadata = new HashMap<>();
        try (InputStream in = new ClassPathResource("META-INF/spring-configuration-metadata.json").getInputStream()) {
            for (JsonNode property : new JsonMapper().readTree(in).get("properties")) {
                metadata.put(property.get("name").asString(), property);
            }
        }
    }

    @Test
    void everyIngestorPropertyOfApplicationYamlIsInTheMetadata() {
        assertThat(ingestorDefaults).containsKey("ingestor.outbox.kafka-timeout");
        Set<String> missing = new TreeSet<>();
        for (String name : ingestorDefaults.keySet()) {
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
        assertThat(ingestorDefaults.keySet())
                .noneMatch(name -> metadata.containsKey(name) && metadata.get(name).path("deprecated").asBoolean());
    }

    @Test
    void everyIngestorPropertyOfApplicationYamlBindsWithNothingLeftOver() {
        Map<String, String> core = new LinkedHashMap<>(ingestorDefaults);
        core.keySet().removeIf(name -> name.startsWith("ingestor.embedded."));
        IngestorProperties properties = bindStrictly(core, "ingestor", IngestorProperties.class);
        assertThat(properties.getSuppliers()).containsKeys("ACME", "GLOBEX");

        Map<String, String> embedded = new LinkedHashMap<>(ingestorDefaults);
        embedded.keySet().removeIf(name -> !name.startsWith("ingestor.embedded.postgres."));
        bindStrictly(embedded, "ingestor.embedded.postgres", EmbeddedPostgresProperties.class);
        embedded = new LinkedHashMap<>(ingestorDefaults);
        embedded.keySet().removeIf(name -> !name.startsWith("ingestor.embedded.kafka."));
        bindStrictly(embedded, "ingestor.embedded.kafka", EmbeddedKafkaProperties.class);
    }

    @Test
    @SuppressWarnings("deprecation") // the former shared redelivery keys are read here on purpose: they stay unset
    void theDefaultsKeepTheirMeaning() {
        IngestorProperties properties = bind(Map.of());
        assertThat(properties.getIntake().getRedelivery().getDelay()).isEqualTo(Duration.ofSeconds(1));
        assertThat(properties.getIntake().getRedelivery().getMaximumDelay()).isEqualTo(Duration.ofSeconds(30));
        assertThat(properties.getPipeline().getPollInterval()).isEqualTo(Duration.ofMillis(500));
        // validation 3 tries 60 s apart, processing 3 tries 120 s apart, both fixed; the former shared policy unset
        IngestorProperties.StageRedelivery validation = properties.getPipeline().validationRedelivery();
        assertThat(validation.getMaximumRedeliveries()).isEqualTo(2);
        assertThat(validation.getDelay()).isEqualTo(Duration.ofSeconds(60));
        assertThat(validation.getBackoffMultiplier()).isEqualTo(1.0);
        IngestorProperties.StageRedelivery processing = properties.getPipeline().processingRedelivery();
        assertThat(processing.getMaximumRedeliveries()).isEqualTo(2);
        assertThat(processing.getDelay()).isEqualTo(Duration.ofSeconds(120));
        assertThat(processing.getBackoffMultiplier()).isEqualTo(1.0);
        assertThat(properties.getPipeline().getRedelivery().getMaximumRedeliveries()).isNull();
        assertThat(properties.getPipeline().getRedelivery().getDelay()).isNull();
        assertThat(properties.getOutbox().getPollInterval()).isEqualTo(Duration.ofMillis(200));
        assertThat(properties.getOutbox().getKafkaTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(properties.getOutbox().getKafkaDeliveryTimeout()).isEqualTo(Duration.ofSeconds(15));
        assertThat(properties.getRetention().getJobMaxAge()).isEqualTo(Duration.ofDays(365));
        assertThat(properties.getRetention().getOutboxMaxAge()).isEqualTo(Duration.ofDays(7));
    }

    @Test
    void plainNumbersAreStillMilliseconds() {
        IngestorProperties properties = bind(Map.of(
                "ingestor.intake.redelivery.delay", "1000",
                "ingestor.pipeline.poll-interval", "250",
                "ingestor.outbox.poll-interval", "200"));
        assertThat(properties.getIntake().getRedelivery().getDelay()).isEqualTo(Duration.ofSeconds(1));
        assertThat(properties.getPipeline().getPollInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(properties.getOutbox().getPollInterval()).isEqualTo(Duration.ofMillis(200));
    }

    @Test
    void theFormerNamesBindToTheNewPropertiesOverTheirDefaults() {
        IngestorProperties properties = bind(Map.of(
                "ingestor.retention.jobs", "30d",
                "ingestor.retention.outbox", "2d",
                "ingestor.outbox.kafka-timeout-ms", "2500",
                "ingestor.outbox.kafka-delivery-timeout-ms", "9000"));
        assertThat(properties.getRetention().getJobMaxAge()).isEqualTo(Duration.ofDays(30));
        assertThat(properties.getRetention().getOutboxMaxAge()).isEqualTo(Duration.ofDays(2));
        assertThat(properties.getOutbox().getKafkaTimeout()).isEqualTo(Duration.ofMillis(2500));
        assertThat(properties.getOutbox().getKafkaDeliveryTimeout()).isEqualTo(Duration.ofSeconds(9));

        RouteTimings timings = new RouteTimings(properties);
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
    void theFormerEmbeddedPoolSizeNamesTheOnePoolSizeOfEveryDatabase() {
        assertThat(metadata.get("ingestor.embedded.postgres.pool-size").path("deprecation").path("replacement").asString())
                .isEqualTo("spring.datasource.hikari.maximum-pool-size");
        assertThat(bind(Map.of()).getDatabase().getStatementTimeout()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void theFormerSharedPipelineRedeliveryStillBindsOverBothStagesWithItsDoubling() {
        IngestorProperties properties = bind(Map.of(
                "ingestor.pipeline.redelivery.maximum-redeliveries", "7",
                "ingestor.pipeline.redelivery.delay", "500ms"));
        for (IngestorProperties.StageRedelivery stage : List.of(properties.getPipeline().validationRedelivery(),
                properties.getPipeline().processingRedelivery())) {
            assertThat(stage.getMaximumRedeliveries()).isEqualTo(7);
            assertThat(stage.getDelay()).isEqualTo(Duration.ofMillis(500));
            assertThat(stage.getMaximumDelay()).as("the former default cap").isEqualTo(Duration.ofMinutes(5));
            assertThat(stage.getBackoffMultiplier()).isEqualTo(2.0);
        }
        // only a count set the former way: each stage keeps its own fixed delay
        properties = bind(Map.of("ingestor.pipeline.redelivery.maximum-redeliveries", "4"));
        assertThat(properties.getPipeline().processingRedelivery().getMaximumRedeliveries()).isEqualTo(4);
        assertThat(properties.getPipeline().processingRedelivery().getDelay()).isEqualTo(Duration.ofSeconds(120));
        assertThat(properties.getPipeline().processingRedelivery().getBackoffMultiplier()).isEqualTo(1.0);
        assertThat(properties.getPipeline().validationRedelivery().getDelay()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void aStageBackoffMultiplierBelowOneIsRefused() {
        assertThatThrownBy(() -> bind(Map.of("ingestor.pipeline.processing.redelivery.backoff-multiplier", "0.5")))
                .hasStackTraceContaining("backoff-multiplier must be at least 1");
    }

    @Test
    void theRoutesGetMillisecondsOfTheTypedValues() {
        RouteTimings timings = new RouteTimings(bind(Map.of(
                "ingestor.pipeline.validation.redelivery.delay", "2m",
                "ingestor.pipeline.processing.redelivery.maximum-delay", "1h")));
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
    }

    /** application.yaml's ingestor.* with {@code overrides} on top, as an operator's configuration would be. */
    private static IngestorProperties bind(Map<String, String> overrides) {
        Map<String, String> values = new LinkedHashMap<>(ingestorDefaults);
        values.putAll(overrides);
        return new Binder(new MapConfigurationPropertySource(values)).bind("ingestor", IngestorProperties.class).get();
    }

    private static <T> T bindStrictly(Map<String, String> values, String prefix, Class<T> type) {
        // an empty value (raw-dir: "") means unset: it binds to nothing, which the strict handler would report
        Map<String, String> set = new LinkedHashMap<>(values);
        set.values().removeIf(String::isEmpty);
        return new Binder(new MapConfigurationPropertySource(set))
                .bind(prefix, Bindable.of(type),
                        new NoUnboundElementsBindHandler(BindHandler.DEFAULT))
                .get();
    }
}
