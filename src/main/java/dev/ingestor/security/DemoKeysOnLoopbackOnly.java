package dev.ingestor.security;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import dev.ingestor.web.ApiKeys;
import org.apache.commons.logging.Log;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.context.config.ConfigDataEnvironmentPostProcessor;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * The shipped demo keys are public (they are in the README and docs/http-api.md), so they must never work from another
 * machine.
 * While any of them is configured: with no {@code server.address} the app listens on 127.0.0.1 only (so
 * {@code java -jar} still works for a newcomer), and with a {@code server.address} that is not a loopback
 * address (0.0.0.0 included) it refuses to start, naming the properties that hold demo keys. The same for
 * {@code management.server.address} when the actuator has a port of its own.
 */
public class DemoKeysOnLoopbackOnly implements EnvironmentPostProcessor, Ordered {

    static final String LOOPBACK = "127.0.0.1";
    static final String SERVER_ADDRESS = "server.address";
    static final String MANAGEMENT_ADDRESS = "management.server.address";

    private final Log log;

    public DemoKeysOnLoopbackOnly(DeferredLogFactory logs) {
        this.log = logs.getLog(DemoKeysOnLoopbackOnly.class);
    }

    @Override
    public int getOrder() {
        // after application.yaml and every other configuration source is in the environment
        return ConfigDataEnvironmentPostProcessor.ORDER + 100;
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        List<String> demoProperties = propertiesHoldingDemoKeys(Binder.get(environment));
        if (demoProperties.isEmpty()) {
            return;
        }
        Map<String, Object> bindings = new LinkedHashMap<>();
        check(environment, SERVER_ADDRESS, demoProperties, bindings);
        if (separateManagementServer(environment)) {
            check(environment, MANAGEMENT_ADDRESS, demoProperties, bindings);
        }
        if (!bindings.isEmpty()) {
            environment.getPropertySources().addLast(new MapPropertySource("ingestor-demo-keys-on-loopback", bindings));
        }
        // the one notice a healthy start with demo keys gives (ApiKeys says nothing more about them)
        log.warn("the demo API keys in " + demoProperties + " are public: listening on loopback only"
                + (bindings.isEmpty() ? "" : " (" + String.join(", ", bindings.keySet()) + " set to " + LOOPBACK + ")")
                + ". To serve other machines, set the SHA-256 of your own keys in those properties and "
                + SERVER_ADDRESS + " (e.g. 0.0.0.0)");
    }

    private static void check(ConfigurableEnvironment environment, String property, List<String> demoProperties,
            Map<String, Object> bindings) {
        String address = environment.getProperty(property);
        if (address == null || address.isBlank()) {
            bindings.put(property, LOOPBACK);
        } else if (!isLoopback(address.trim())) {
            throw new IllegalStateException(
                    property + "=" + address.trim() + " is not a loopback address, and the public demo"
                            + " API keys are still configured in " + demoProperties
                            + ". Set the SHA-256 of your own keys in those"
                            + " properties (printf %s \"$KEY\" | sha256sum), or remove " + property + " to listen on "
                            + LOOPBACK + " only.");
        }
    }

    private static boolean isLoopback(String address) {
        try {
            return InetAddress.getByName(address).isLoopbackAddress();
        } catch (UnknownHostException e) {
            // an address that does not resolve cannot be shown to be loopback
            return false;
        }
    }

    private static boolean separateManagementServer(ConfigurableEnvironment environment) {
        return ManagementPortType.get(environment) == ManagementPortType.DIFFERENT;
    }

    static List<String> propertiesHoldingDemoKeys(Binder binder) {
        List<String> found = new ArrayList<>();
        if (holdsDemoKey(
                binder.bind("ingestor.admin.api-key-sha256", Bindable.listOf(String.class)).orElse(List.of()))) {
            found.add("ingestor.admin.api-key-sha256");
        }
        binder.bind("ingestor.suppliers", Bindable.mapOf(String.class, KeyHashes.class)).orElse(Map.of())
                .forEach((code, supplier) -> {
                    if (holdsDemoKey(supplier.getApiKeySha256())) {
                        found.add("ingestor.suppliers." + code + ".api-key-sha256");
                    }
                });
        return found;
    }

    private static boolean holdsDemoKey(List<String> hashes) {
        return hashes != null && hashes.stream().filter(Objects::nonNull)
                .anyMatch(h -> ApiKeys.DEMO_KEY_HASHES.contains(h.trim().toLowerCase(Locale.ROOT)));
    }

    /** The one property of a supplier this check reads; the rest of its configuration is left alone. */
    public static class KeyHashes {
        private List<String> apiKeySha256 = new ArrayList<>();

        public List<String> getApiKeySha256() { return apiKeySha256; }
        public void setApiKeySha256(List<String> apiKeySha256) { this.apiKeySha256 = apiKeySha256; }
    }
}
