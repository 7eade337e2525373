package dev.ingestor.web;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;

import dev.ingestor.config.IngestorProperties;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.util.unit.DataSize;

/**
 * The {@code spring.*} and {@code camel.*} settings that follow from {@code ingestor.*} ones, with the defaults of
 * the settings classes (which application.yaml no longer repeats):
 * <ul>
 * <li>Spring's multipart limits are {@code ingestor.http.max-file-size}: a multipart push is bounded like a raw one,
 * its file part by it and the whole form by it and {@link HttpSettings#MULTIPART_ENVELOPE};
 * <li>Camel spools the request bodies it caches to {@code <ingestor.data-dir>/spool}.
 * </ul>
 * Each value is read when asked for, so whatever sets the {@code ingestor.*} property (a test's dynamic properties
 * too) counts. Added last: an operator's own {@code spring.*} or {@code camel.*} setting wins.
 */
public class SpringSettingsFromIngestor implements EnvironmentPostProcessor {

    static final String SOURCE = "ingestor-derived-settings";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        Supplier<DataSize> fileSize = () -> Binder.get(environment).bind("ingestor.http.max-file-size", DataSize.class)
                .orElseGet(() -> new HttpSettings().getMaxFileSize());
        Supplier<String> maxFileSize = () -> fileSize.get().toString();
        Supplier<String> maxRequestSize = () -> DataSize
                .ofBytes(fileSize.get().toBytes() + HttpSettings.MULTIPART_ENVELOPE.toBytes()).toString();
        Supplier<String> spool = () -> {
            String dataDir = environment.getProperty("ingestor.data-dir");
            return (dataDir != null ? Path.of(dataDir) : new IngestorProperties().getDataDir()).resolve("spool")
                    .toString();
        };
        Map<String, Supplier<String>> derived = Map.of(
                "spring.servlet.multipart.max-file-size", maxFileSize,
                "spring.servlet.multipart.max-request-size", maxRequestSize,
                "camel.main.stream-caching-spool-directory", spool);
        environment.getPropertySources().addLast(new EnumerablePropertySource<>(SOURCE, derived) {
            @Override
            public String[] getPropertyNames() { return derived.keySet().toArray(String[]::new); }

            @Override
            public Object getProperty(String name) {
                Supplier<String> value = derived.get(name);
                return value == null ? null : value.get();
            }
        });
    }
}
