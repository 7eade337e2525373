package dev.ingestor.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.ingestor.config.KafkaSettings;
import org.apache.camel.Route;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Relays of topics no longer configured, with a Camel context of its own, plain routes for relays and a fixed answer
 * for the outbox's waiting topics.
 */
class RelayInstallerTest {

    @Test
    void aTopicWhoseRelaysCouldNotAllBeAddedIsTriedAgainWithNoneLeftHalfAdded() throws Exception {
        OutboxSettings settings = new OutboxSettings();
        settings.setRelays(2);
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            camel.start();
            FailingOnce installer = new FailingOnce(settings, camel);

            // the start relays the configured topics; the earlier topic's second relay fails
            installer.install();
            assertThat(camel.getRoutes()).extracting(Route::getRouteId).as("its first relay taken away again")
                    .containsExactlyInAnyOrder("outbox-relay-items-1", "outbox-relay-items-2",
                            "outbox-relay-dead-letters-1", "outbox-relay-dead-letters-2");

            assertThat(installer.relayEarlierTopics()).as("tried again at the next run")
                    .containsExactly("outbox-relay-earlier-3-1", "outbox-relay-earlier-3-2");
            assertThat(camel.getRoutes()).extracting(Route::getRouteId)
                    .contains("outbox-relay-earlier-3-1", "outbox-relay-earlier-3-2").hasSize(6);
            assertThat(installer.relayEarlierTopics()).as("relayed once").isEmpty();
        }
    }

    /** Adds a plain route per relay; the first attempt at a second relay fails, as a template that failed would. */
    private static final class FailingOnce extends RelayInstaller {

        static final String EARLIER = "earlier.topic";

        private final DefaultCamelContext camel;
        private boolean failed;

        FailingOnce(OutboxSettings settings, DefaultCamelContext camel) {
            super(settings, new KafkaSettings(), camel, new JdbcTemplate() {
                @Override
                @SuppressWarnings("unchecked")
                public <T> List<T> queryForList(String sql, Class<T> type) {
                    return (List<T>) List.of(EARLIER);
                }
            });
            this.camel = camel;
        }

        @Override
        public void add(String routeId, String topic, int relay) throws Exception {
            if (topic.equals(EARLIER) && relay == 2 && !failed) {
                failed = true;
                throw new IllegalStateException("no relay " + relay);
            }
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:" + routeId).routeId(routeId).log(topic);
                }
            });
        }
    }
}
