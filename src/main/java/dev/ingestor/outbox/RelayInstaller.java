package dev.ingestor.outbox;

import dev.ingestor.config.KafkaSettings;
import dev.ingestor.config.RoutesFromTemplates;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.TemplatedRouteBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Makes {@code ingestor.outbox.relays} relays per topic from the {@code outbox-relay} template in
 * routes/outbox-relay.camel.yaml: routes {@code outbox-relay-items-<n>} and {@code outbox-relay-dead-letters-<n>}.
 */
@Component
public class RelayInstaller implements RoutesFromTemplates {

    /** The route id of the topic's relays on this instance, followed by their number. */
    public static final String ITEMS_RELAYS = "outbox-relay-items-";
    public static final String DEAD_LETTER_RELAYS = "outbox-relay-dead-letters-";

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.outbox");

    private final OutboxSettings settings;
    private final KafkaSettings kafka;
    private final CamelContext camelContext;

    public RelayInstaller(OutboxSettings settings, KafkaSettings kafka, CamelContext camelContext) {
        this.settings = settings;
        this.kafka = kafka;
        this.camelContext = camelContext;
    }

    @Override
    public String routes() {
        return "the outbox relays";
    }

    @Override
    public void install() throws Exception {
        int relays = Math.max(1, settings.getRelays());
        for (int n = 1; n <= relays; n++) {
            add(ITEMS_RELAYS + n, kafka.getItemsTopic(), n);
            add(DEAD_LETTER_RELAYS + n, kafka.getDeadLettersTopic(), n);
        }
        LOG.info("{} outbox relay(s) per topic added", relays);
    }

    /** Adds one relay of {@code topic}; also how a test relays a topic of its own. */
    public void add(String routeId, String topic, int relay) throws Exception {
        TemplatedRouteBuilder.builder(camelContext, "outbox-relay")
                .routeId(routeId)
                .parameter("topic", topic)
                .parameter("relay", relay)
                .add();
    }
}
