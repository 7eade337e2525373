package dev.ingestor.outbox;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.apache.camel.AsyncProducer;
import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.apache.camel.component.kafka.KafkaConstants;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Sends a batch of outbox events to Kafka one record each and settles every event on its own outcome:
 * acknowledged events are marked published (and never sent again), an event Kafka refuses for good
 * ({@link KafkaRefusals}) becomes a dead letter and leaves the backlog, and an event whose send failed in a way
 * that passes waits for the next round. One refused event therefore never holds back the others.
 * <p>
 * Records are handed to the producer in outbox order from this one thread, so Kafka keeps their order per key
 * (the idempotent producer keeps it across its own retries too). After the first failure that may pass, nothing
 * more of the batch is sent: with Kafka gone every send would wait out the producer's timeout, and the events
 * behind stay in order. An event that still fails after Kafka acknowledged later events of the same key arrives
 * after them; its item revision lets a consumer order them.
 * <p>
 * The broker may refuse a whole producer batch for one record in it (larger than the topic's max.message.bytes);
 * the producer then retries until its delivery timeout and reports a timeout for every record of the batch. So
 * after a round with a failure that may pass, the next round of that topic sends its first event alone: a record
 * alone in its batch gets the broker's real answer (refused for good, or acknowledged), and the relay goes on
 * with whole batches as soon as one event goes through.
 */
@Component
public class OutboxRelay {

    /** The Kafka endpoint URI of the batch's topic, set by the route (routes/outbox-relay.camel.yaml). */
    static final String ENDPOINT = "IngestorKafkaEndpoint";
    /** The topic whose events the round relays, set by the route; {@link OutboxStore#nextBatch} reads it too. */
    static final String TOPIC = "IngestorOutboxTopic";
    static final String EVENT_ID_HEADER = "event_id";
    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.outbox");

    private final CamelContext camelContext;
    private final OutboxStore store;
    private final OutboxSettings settings;
    private final long waitMillis;
    private final Map<String, AsyncProducer> producers = new ConcurrentHashMap<>();
    /** Topics whose last round had a failure that may pass: their next round sends one event alone. */
    private final Set<String> oneAtATime = ConcurrentHashMap.newKeySet();

    public OutboxRelay(CamelContext camelContext, OutboxStore store, OutboxSettings settings) {
        this.camelContext = camelContext;
        this.store = store;
        this.settings = settings;
        // the producer gives every record an answer within its delivery timeout; the margin covers the callbacks
        this.waitMillis = settings.getKafkaDeliveryTimeout().plus(settings.getKafkaTimeout()).toMillis();
    }

    /** The producer's max.request.size in bytes, for the route's Kafka endpoint. */
    public int maxEventSizeBytes() {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, settings.getMaxEventSize().toBytes()));
    }

    /** Sends {@code events} and settles each; returns how many were acknowledged (0 for no events). */
    public int publish(List<OutboxEvent> events, @ExchangeProperty(TOPIC) String topic,
            @ExchangeProperty(ENDPOINT) String endpointUri) throws Exception {
        if (events.isEmpty()) {
            return 0;
        }
        AsyncProducer producer = producer(endpointUri);
        Endpoint endpoint = producer.getEndpoint();
        List<Exchange> sent = new ArrayList<>(events.size());
        AtomicIntegerArray answers = new AtomicIntegerArray(events.size());
        CountDownLatch answered = new CountDownLatch(events.size());
        AtomicBoolean passingFailure = new AtomicBoolean();
        int toSend = oneAtATime.contains(topic) ? 1 : events.size();
        for (OutboxEvent event : events) {
            if (passingFailure.get() || sent.size() == toSend) {
                break;
            }
            int index = sent.size();
            Exchange exchange = endpoint.createExchange();
            exchange.getMessage().setHeader(KafkaConstants.KEY, event.key());
            exchange.getMessage().setHeader(EVENT_ID_HEADER, event.eventId().toString());
            exchange.getMessage().setBody(event.payload());
            sent.add(exchange);
            producer.process(exchange, doneSync -> {
                if (exchange.getException() != null && KafkaRefusals.refusal(exchange.getException()) == null) {
                    passingFailure.set(true);
                }
                answers.set(index, 1);
                answered.countDown();
            });
        }
        for (int i = sent.size(); i < events.size(); i++) {
            answered.countDown(); // never sent: nothing to wait for
        }
        if (!answered.await(waitMillis, TimeUnit.MILLISECONDS)) {
            LOG.warn(
                    "outbox relay for {}: Kafka did not answer every event within {} ms; those events are sent again later",
                    topic, waitMillis);
        }
        List<Long> published = new ArrayList<>();
        int waiting = 0;
        String firstFailure = null;
        for (int i = 0; i < sent.size(); i++) {
            Exchange exchange = sent.get(i);
            OutboxEvent event = events.get(i);
            // an event still without an answer counts as a failure that passes: it is sent again later
            boolean answer = answers.get(i) == 1;
            Throwable failure = answer ? exchange.getException() : null;
            Throwable refusal = failure == null ? null : KafkaRefusals.refusal(failure);
            if (answer && failure == null) {
                published.add(event.id());
            } else if (refusal != null) {
                store.refuse(topic, event, refusal);
            } else {
                waiting++;
                if (firstFailure == null) {
                    firstFailure = failure == null ? "no answer in time" : failure.getMessage();
                }
            }
        }
        store.markPublished(published);
        if (waiting > 0) {
            oneAtATime.add(topic);
            LOG.warn("outbox relay for {} could not publish {} event(s): {}; they stay in the outbox and are sent"
                    + " again, one alone first", topic, waiting, firstFailure);
        } else if (!published.isEmpty()) {
            oneAtATime.remove(topic);
        }
        return published.size();
    }

    private AsyncProducer producer(String uri) throws Exception {
        AsyncProducer existing = producers.get(uri);
        if (existing != null) {
            return existing;
        }
        synchronized (producers) {
            AsyncProducer producer = producers.get(uri);
            if (producer == null) {
                producer = camelContext.getEndpoint(uri).createAsyncProducer();
                // the context starts it now and stops it with itself
                camelContext.addService(producer, true, true);
                producers.put(uri, producer);
            }
            return producer;
        }
    }
}
