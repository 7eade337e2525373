package dev.ingestor.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * The one place the former names of renamed {@code ingestor.*} properties are still read: a former name an
 * operator's configuration sets is read as its replacement, and the start logs one WARN naming both. A replacement
 * set anywhere wins over its former name. The metadata declares each former name deprecated, with its replacement
 * (META-INF/additional-spring-configuration-metadata.json), so IDEs flag it; version 1.0.0 stops reading them.
 *
 * <p>Spring Boot's properties migrator would report them too, but it is a dependency to add for the length of an
 * upgrade and then remove, and it maps one name to one name only; {@code ingestor.pipeline.redelivery.*} sets
 * both stages and brings its doubling with it.
 */
public class RenamedProperties implements EnvironmentPostProcessor {

    static final String SOURCE = "ingestor-renamed-properties";
    static final String REMOVED_IN = "1.0.0";

    /** Former name and its replacement, where the value means the same under both. */
    static final Map<String, String> RENAMED = Map.of(
            "ingestor.retention.jobs", "ingestor.retention.job-max-age",
            "ingestor.retention.outbox", "ingestor.retention.outbox-max-age",
            // a plain number is read as milliseconds by the duration that replaces each
            "ingestor.outbox.kafka-timeout-ms", "ingestor.outbox.kafka-timeout",
            "ingestor.outbox.kafka-delivery-timeout-ms", "ingestor.outbox.kafka-delivery-timeout");

    /** The one redelivery policy both pipeline stages shared before each had its own. */
    static final String SHARED_REDELIVERY = "ingestor.pipeline.redelivery.";
    private static final List<String> STAGES = List.of("validation", "processing");
    /** The shared policy's cap of its doubling when it set a delay but no maximum-delay. */
    private static final String SHARED_MAXIMUM_DELAY = "5m";

    private final Log log;

    public RenamedProperties(DeferredLogFactory logs) {
        this.log = logs.getLog(RenamedProperties.class);
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        Map<String, Object> read = new LinkedHashMap<>(replacements(environment::getProperty, log::warn));
        if (!read.isEmpty()) {
            // last: whatever sets a replacement itself wins
            environment.getPropertySources().addLast(new MapPropertySource(SOURCE, read));
        }
    }

    /**
     * What the former names set in {@code configured} say under their replacements, leaving out a replacement
     * {@code configured} sets itself; {@code warn} is told of each former name found.
     */
    public static Map<String, String> replacements(Function<String, String> configured, Consumer<String> warn) {
        Map<String, String> read = new LinkedHashMap<>();
        RENAMED.forEach((former, replacement) -> {
            String value = configured.apply(former);
            if (value != null) {
                put(read, configured, warn, former, replacement, value);
            }
        });
        String count = configured.apply(SHARED_REDELIVERY + "maximum-redeliveries");
        String delay = configured.apply(SHARED_REDELIVERY + "delay");
        String maximumDelay = configured.apply(SHARED_REDELIVERY + "maximum-delay");
        for (String stage : STAGES) {
            String policy = "ingestor.pipeline." + stage + ".redelivery.";
            if (count != null) {
                put(read, configured, warn, SHARED_REDELIVERY + "maximum-redeliveries", policy + "maximum-redeliveries",
                        count);
            }
            if (delay != null || maximumDelay != null) {
                // its former meaning: a delay set there doubled after each redelivery, up to 5 minutes unless set
                String former = SHARED_REDELIVERY + (delay != null ? "delay" : "maximum-delay");
                if (delay != null) {
                    put(read, configured, warn, former, policy + "delay", delay);
                }
                put(read, configured, warn, former, policy + "maximum-delay",
                        maximumDelay != null ? maximumDelay : SHARED_MAXIMUM_DELAY);
                put(read, configured, warn, former, policy + "backoff-multiplier", "2");
            }
        }
        return read;
    }

    private static void put(Map<String, String> read, Function<String, String> configured, Consumer<String> warn,
            String former, String replacement, String value) {
        if (configured.apply(replacement) != null) {
            warn.accept(former + " is ignored: " + replacement + " is set, which replaces it (" + former
                    + " is deprecated and no longer read from " + REMOVED_IN + ")");
            return;
        }
        warn.accept(former + " is read as " + replacement + "=" + value + ": set " + replacement + " instead ("
                + former + " is deprecated and no longer read from " + REMOVED_IN + ")");
        read.put(replacement, value);
    }
}
