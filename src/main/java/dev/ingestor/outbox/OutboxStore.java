package dev.ingestor.outbox;

import java.util.List;

import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.Message;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.camel.support.DefaultMessage;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The relay's side of the outbox. Called inside one transaction per batch: take the oldest unpublished events
 * of a topic, send them, mark them published. A transaction-scoped advisory lock lets one relay per topic run
 * at a time across all instances, so events leave in the order they were written (per key, Kafka keeps it).
 * If Kafka is unreachable the send fails, the transaction rolls back and the events wait for the next round.
 */
@Component
public class OutboxStore {

    static final String IDS = "IngestorOutboxIds";

    private final JdbcTemplate jdbc;
    private final CamelContext camelContext;
    private final int limit;

    public OutboxStore(JdbcTemplate jdbc, CamelContext camelContext,
                       @org.springframework.beans.factory.annotation.Value("${ingestor.outbox.batch-size:1000}") int limit) {
        this.jdbc = jdbc;
        this.camelContext = camelContext;
        this.limit = limit;
    }

    /** The next events of {@code topic} as Kafka messages (key header set), or an empty list. */
    public List<Message> nextBatch(@ExchangeProperty("IngestorOutboxTopic") String topic, Exchange exchange) {
        Boolean leader = jdbc.queryForObject("SELECT pg_try_advisory_xact_lock(hashtext('ingestor.outbox:' || ?))", Boolean.class, topic);
        if (!Boolean.TRUE.equals(leader)) {
            return List.of();
        }
        List<Long> ids = new java.util.ArrayList<>();
        List<Message> messages = jdbc.query("SELECT id, event_id, event_key, payload FROM outbox"
                        + " WHERE topic = ? AND published_at IS NULL ORDER BY id LIMIT ? FOR UPDATE",
                (rs, row) -> {
                    ids.add(rs.getLong("id"));
                    Message message = new DefaultMessage(camelContext);
                    message.setHeader(KafkaConstants.KEY, rs.getString("event_key"));
                    message.setBody(rs.getString("payload"));
                    return message;
                }, topic, limit);
        exchange.setProperty(IDS, ids);
        return messages;
    }

    public int markPublished(Exchange exchange) {
        @SuppressWarnings("unchecked")
        List<Long> ids = exchange.getProperty(IDS, List.class);
        if (ids == null || ids.isEmpty()) {
            return 0;
        }
        return jdbc.update("UPDATE outbox SET published_at = now() WHERE id = ANY (?)",
                ps -> ps.setArray(1, ps.getConnection().createArrayOf("bigint", ids.toArray())));
    }

    public long unpublished() {
        return jdbc.queryForObject("SELECT count(*) FROM outbox WHERE published_at IS NULL", Long.class);
    }
}
