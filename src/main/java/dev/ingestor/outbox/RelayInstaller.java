package dev.ingestor.outbox;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.ingestor.config.KafkaSettings;
import dev.ingestor.config.RoutesFromTemplates;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.TemplatedRouteBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Makes {@code ingestor.outbox.relays} relays per topic from the {@code outbox-relay} template in
 * routes/outbox-relay.camel.yaml: routes {@code outbox-relay-items-<n>} and {@code outbox-relay-dead-letters-<n>}.
 * A topic that is no longer configured but still has events waiting in the outbox (its setting renamed while events
 * were pending, as after a Kafka outage) gets relays too, {@code outbox-relay-earlier-<i>-<n>}: each event goes to the
 * topic it was written for, and none is stranded where no relay, gauge or alert would ever see it. Asked at start and
 * by every housekeeping run (routes/housekeeping.camel.yaml): during a rolling deploy that renames a topic, the
 * instances of the earlier settings write events for it after the new ones started, and a start may find the database
 * away.
 */
@Component
public class RelayInstaller implements RoutesFromTemplates {

    /** The route id of the topic's relays on this instance, followed by their number. */
    public static final String ITEMS_RELAYS = "outbox-relay-items-";
    public static final String DEAD_LETTER_RELAYS = "outbox-relay-dead-letters-";

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.outbox");

    /** The route id of a relay of a topic no longer configured, followed by the topic's and the relay's number. */
    public static final String EARLIER_TOPIC_RELAYS = "outbox-relay-earlier-";

    /**
     * The topics of the events waiting in the outbox, one index probe each (outbox_slice is on topic first), however
     * many events wait.
     */
    private static final String TOPICS_WAITING = "WITH RECURSIVE t(topic) AS (SELECT min(topic) FROM outbox"
            + " UNION ALL SELECT (SELECT min(topic) FROM outbox WHERE topic > t.topic) FROM t WHERE t.topic IS NOT NULL)"
            + " SELECT topic FROM t WHERE topic IS NOT NULL";

    private final OutboxSettings settings;
    private final KafkaSettings kafka;
    private final CamelContext camelContext;
    private final JdbcTemplate jdbc;
    /** Topics this instance relays; guarded by itself. */
    private final Set<String> relayed = new HashSet<>();

    public RelayInstaller(OutboxSettings settings, KafkaSettings kafka, CamelContext camelContext, JdbcTemplate jdbc) {
        this.settings = settings;
        this.kafka = kafka;
        this.camelContext = camelContext;
        this.jdbc = jdbc;
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
        synchronized (relayed) {
            relayed.add(kafka.getItemsTopic());
            relayed.add(kafka.getDeadLettersTopic());
        }
        LOG.info("{} outbox relay(s) per topic added", relays);
        relayEarlierTopics();
    }

    /**
     * Adds relays for each topic with events waiting that this instance does not relay yet; returns their route ids.
     * A start that cannot ask (the database away) says so and relays the configured topics only.
     */
    public List<String> relayEarlierTopics() throws Exception {
        List<String> waiting;
        try {
            waiting = jdbc.queryForList(TOPICS_WAITING, String.class);
        } catch (DataAccessException e) {
            LOG.warn("could not tell which topics have events waiting in the outbox ({}); only the configured topics"
                    + " are relayed", e.getMessage());
            return List.of();
        }
        List<String> added = new ArrayList<>();
        int relays = Math.max(1, settings.getRelays());
        synchronized (relayed) {
            for (String topic : waiting) {
                if (relayed.contains(topic)) {
                    continue;
                }
                int index = relayed.size() + 1;
                List<String> routes = new ArrayList<>();
                try {
                    for (int n = 1; n <= relays; n++) {
                        String route = EARLIER_TOPIC_RELAYS + index + "-" + n;
                        add(route, topic, n);
                        routes.add(route);
                    }
                } catch (Exception e) {
                    // the topic stays unmarked, without a relay of it half-added: the next housekeeping run tries again
                    removeAll(routes);
                    LOG.warn("could not relay outbox events of topic {} ({}); tried again at the next housekeeping run",
                            topic, e.getMessage());
                    continue;
                }
                relayed.add(topic);
                added.addAll(routes);
                LOG.warn("outbox events of topic {} are waiting, a topic no longer configured"
                        + " (ingestor.kafka.items-topic and dead-letters-topic name {} and {}): they are relayed to {},"
                        + " the topic they were written for, by {} relay(s) of this instance until its next start",
                        topic, kafka.getItemsTopic(), kafka.getDeadLettersTopic(), topic, relays);
            }
        }
        return added;
    }

    private void removeAll(List<String> routes) {
        for (String route : routes) {
            try {
                camelContext.getRouteController().stopRoute(route);
                camelContext.removeRoute(route);
            } catch (Exception e) {
                LOG.warn("could not remove relay {} of a topic not relayed after all ({})", route, e.getMessage());
            }
        }
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
