package dev.ingestor.support;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.ingestor.config.RenamedProperties;
import jakarta.validation.Validation;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.validation.ValidationBindHandler;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.validation.beanvalidation.SpringValidatorAdapter;

/**
 * A settings class bound as the app binds it, without starting the app: its defaults, {@code values} on top (the
 * former names of renamed properties read as at start, by {@link RenamedProperties}), its constraints checked.
 */
public final class BoundSettings {

    private BoundSettings() {
    }

    public static <T> T bind(Class<T> type, Map<String, String> values) {
        Map<String, String> configured = new LinkedHashMap<>(values);
        configured.putAll(RenamedProperties.replacements(values::get, warning -> {}));
        String prefix = type.getAnnotation(ConfigurationProperties.class).prefix();
        // as the app: its constraints are checked only on a class marked @Validated
        BindHandler validated = type.isAnnotationPresent(org.springframework.validation.annotation.Validated.class)
                ? new ValidationBindHandler(
                        new SpringValidatorAdapter(Validation.buildDefaultValidatorFactory().getValidator()))
                : BindHandler.DEFAULT;
        return new Binder(new MapConfigurationPropertySource(configured)).bindOrCreate(prefix, Bindable.of(type),
                validated);
    }

    public static <T> T defaults(Class<T> type) {
        return bind(type, Map.of());
    }
}
