package dev.ingestor.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/** Demo keys never listen beyond loopback: bound to 127.0.0.1 when no address is set, refused on any other. */
class DemoKeysOnLoopbackOnlyTest {

    private static final String DEMO_ADMIN = "806647bb62d32253b6797dad9d71d211d172005a6564317a920e9ba78322a338";
    private static final String OWN = "0000000000000000000000000000000000000000000000000000000000000001";

    private static StandardEnvironment environment(Map<String, Object> properties) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("test", new HashMap<>(properties)));
        new DemoKeysOnLoopbackOnly(destination -> destination.get()).postProcessEnvironment(environment,
                new SpringApplication());
        return environment;
    }

    @Test
    void withADemoKeyAndNoAddressTheAppListensOnLoopback() {
        assertThat(environment(Map.of("ingestor.admin.api-key-sha256", DEMO_ADMIN)).getProperty("server.address"))
                .isEqualTo("127.0.0.1");
        // a demo key among others, in upper case, for a supplier
        assertThat(environment(Map.of("ingestor.suppliers.ACME.api-key-sha256", OWN + "," + DEMO_ADMIN.toUpperCase()))
                .getProperty("server.address")).isEqualTo("127.0.0.1");
    }

    @Test
    void ownKeysLeaveTheAddressAlone() {
        StandardEnvironment environment = environment(Map.of("ingestor.admin.api-key-sha256", OWN,
                "ingestor.suppliers.ACME.api-key-sha256", OWN.replace('1', '2'), "ingestor.suppliers.ACME.format",
                "csv"));
        assertThat(environment.getProperty("server.address")).isNull();
        assertThat(environment(Map.of("ingestor.admin.api-key-sha256", OWN, "server.address", "0.0.0.0"))
                .getProperty("server.address")).isEqualTo("0.0.0.0");
    }

    @Test
    void aDemoKeyOnAnotherAddressIsRefusedNamingTheProperties() {
        for (String address : new String[] {"0.0.0.0", "::", "192.0.2.10", "no-such-host.invalid"}) {
            assertThatThrownBy(() -> environment(
                    Map.of("ingestor.suppliers.GLOBEX.api-key-sha256", DEMO_ADMIN, "server.address", address)))
                    .hasMessageContaining("server.address=" + address)
                    .hasMessageContaining("ingestor.suppliers.GLOBEX.api-key-sha256");
        }
        assertThat(environment(Map.of("ingestor.admin.api-key-sha256", DEMO_ADMIN, "server.address", "::1"))
                .getProperty("server.address")).isEqualTo("::1");
    }

    @Test
    void aSeparateManagementPortIsHeldToTheSameRule() {
        StandardEnvironment environment = environment(
                Map.of("ingestor.admin.api-key-sha256", DEMO_ADMIN, "management.server.port", "9090"));
        assertThat(environment.getProperty("management.server.address")).isEqualTo("127.0.0.1");
        assertThatThrownBy(
                () -> environment(Map.of("ingestor.admin.api-key-sha256", DEMO_ADMIN, "server.address", "127.0.0.1",
                        "management.server.port", "9090", "management.server.address", "0.0.0.0")))
                .hasMessageContaining("management.server.address=0.0.0.0");
        assertThat(environment(Map.of("ingestor.admin.api-key-sha256", DEMO_ADMIN, "management.server.port", "8080"))
                .getProperty("management.server.address")).as("the same port is the same server").isNull();
    }
}
