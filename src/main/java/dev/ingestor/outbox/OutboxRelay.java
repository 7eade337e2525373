package dev.ingestor.outbox;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

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
 * Sends a relay round's events to Kafka one record each, with no transaction open, and sorts Kafka's answers for
 * {@link OutboxStore#settle}: acknowledged events leave the outbox (and are never sent again), an event Kafka refuses
 * for good ({@link KafkaRefusals}) becomes a dead letter and leaves it too, and an event whose send failed in a way
 * that passes waits for a later round. One refused event therefore never holds back the others.
 * <p>
 * Records are handed to the producer in outbox order from this one thread, so Kafka keeps their order per key
 * (the idempotent producer keeps it across its own retries too). After the first failure that may pass, nothing
 * more of the round is sent: with Kafka gone every send would wait out the producer's timeout, and the events
 * behind stay in order. An event that still fails after Kafka acknowledged later events of the same key arrives
 * after them; its item revision lets a consumer order them.
 * <p>
 * The broker may refuse a whole producer batch for one record in it (larger than the topic's max.message.bytes);
 * the producer then retries until its delivery timeout and reports a timeout for every record of the batch. So
 * after a round with a failure that may pass, the next round of that slice sends its first event alone: a record
 * alone gets the broker's real answer (refused for good, or acknowledged), and the slice goes on with whole rounds
 * as soon as one event goes through, or as soon as one fails alone in a way that passes (its partition without a
 * leader, say), which no batch hid: then the events of the slice's other partitions go on ({@link
 * OutboxStore#nextAlone}).
 * <p>
 * No record is handed to the producer later than {@code ingestor.outbox.kafka-timeout} after the round's slice was
 * taken: with the delivery timeout, that bounds when the round's last send can still reach Kafka, which the
 * slice's lease outlasts ({@link OutboxSettings#sliceLease}). What is not handed over in time waits, unsent.
 */
@Component
public class OutboxRelay {

    /** The Kafka endpoint URI of the round's topic, set by the route (routes/outbox-relay.camel.yaml). */
    static final String ENDPOINT = "IngestorKafkaEndpoint";
    /** The topic whose events the round relays, set by the route; {@link OutboxStore#take} reads it too. */
    static final String TOPIC = "IngestorOutboxTopic";
    static final String EVENT_ID_HEADER = "event_id";
    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.outbox");

    private final CamelContext camelContext;
    private final OutboxSettings settings;
    private final long waitMillis;
    private final long handOverNanos;
    private final Map<String, AsyncProducer> producers = new ConcurrentHashMap<>();
    /**
     * Per producer: the relays of this instance share a topic's producer, which puts records of several rounds into
     * one batch. A round that sends one event alone (after a failure that may pass) must be alone in its batch to get
     * the broker's own answer for that event, so it sends and waits under the write lock; other rounds share the read
     * lock. Without it two slices' lone events rode in one batch that the broker refused whole, for ever.
     */
    private final Map<String, ReadWriteLock> inFlight = new ConcurrentHashMap<>();
    /** Guarded by {@code producers}. */
    private Unmade unmade;

    public OutboxRelay(CamelContext camelContext, OutboxSettings settings) {
        this.camelContext = camelContext;
        this.settings = settings;
        this.waitMillis = settings.answerWait().toMillis();
        this.handOverNanos = settings.getKafkaTimeout().toNanos();
    }

    /** The producer's max.request.size in bytes, for the route's Kafka endpoint. */
    public int maxEventSizeBytes() {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, settings.getMaxEventSize().toBytes()));
    }

    /** Sends the round's events and waits for Kafka's answers; touches no database. */
    public RelaySettlement send(RelayRound round, @ExchangeProperty(ENDPOINT) String endpointUri) throws Exception {
        List<OutboxEvent> events = round.events();
        List<Exchange> sent = new ArrayList<>(events.size());
        AtomicIntegerArray answers = new AtomicIntegerArray(events.size());
        CountDownLatch answered = new CountDownLatch(events.size());
        AtomicBoolean passingFailure = new AtomicBoolean();
        String notSent = null;
        Lock held = null;
        boolean handedOver = events.isEmpty();
        try {
            if (!events.isEmpty()) {
                ReadWriteLock lock = inFlight.computeIfAbsent(endpointUri, uri -> new ReentrantReadWriteLock());
                Lock wanted = round.oneAlone() ? lock.writeLock() : lock.readLock();
                long left = handOverNanos - (System.nanoTime() - round.takenAt());
                if (left > 0 && wanted.tryLock(left, TimeUnit.NANOSECONDS)) {
                    held = wanted;
                } else {
                    notSent = "the round could not hand its events to the producer within ingestor.outbox.kafka-timeout";
                }
            }
            AsyncProducer producer = null;
            if (held != null) {
                try {
                    producer = producer(endpointUri);
                } catch (Exception e) {
                    // Kafka's client refuses to be made while no bootstrap server resolves (a broker's host gone
                    // from DNS): the events wait, as for a broker that does not answer
                    notSent = "no Kafka producer could be made: " + e.getMessage();
                }
            }
            if (producer != null) {
                handedOver = true;
                Endpoint endpoint = producer.getEndpoint();
                int toSend = round.oneAlone() ? 1 : events.size();
                for (OutboxEvent event : events) {
                    if (passingFailure.get() || sent.size() == toSend) {
                        break;
                    }
                    if (System.nanoTime() - round.takenAt() > handOverNanos) {
                        notSent = "the round could not hand its events to the producer within ingestor.outbox.kafka-timeout";
                        break;
                    }
                    int index = sent.size();
                    Exchange exchange = endpoint.createExchange();
                    exchange.getMessage().setHeader(KafkaConstants.KEY, event.key());
                    exchange.getMessage().setHeader(EVENT_ID_HEADER, event.eventId().toString());
                    exchange.getMessage().setBody(event.payload());
                    sent.add(exchange);
                    producer.process(exchange, doneSync -> {
                        if (exchange.getException() != null
                                && KafkaRefusals.refusal(exchange.getException(), round.oneAlone()) == null) {
                            passingFailure.set(true);
                        }
                        answers.set(index, 1);
                        answered.countDown();
                    });
                }
            }
            for (int i = sent.size(); i < events.size(); i++) {
                answered.countDown(); // never sent: nothing to wait for
            }
            if (!answered.await(waitMillis, TimeUnit.MILLISECONDS)) {
                LOG.warn("outbox relay for {}: Kafka did not answer every event of slice {} within {} ms; those events"
                        + " are sent again later", round.topic(), round.slice(), waitMillis);
            }
        } finally {
            if (held != null) {
                held.unlock();
            }
        }
        List<OutboxEvent> published = new ArrayList<>();
        List<RelaySettlement.Refusal> refused = new ArrayList<>();
        int waiting = notSent == null ? 0 : events.size() - sent.size();
        String firstFailure = notSent;
        for (int i = 0; i < sent.size(); i++) {
            Exchange exchange = sent.get(i);
            OutboxEvent event = events.get(i);
            // an event still without an answer counts as a failure that passes: it is sent again later
            boolean answer = answers.get(i) == 1;
            Throwable failure = answer ? exchange.getException() : null;
            Throwable refusal = failure == null ? null : KafkaRefusals.refusal(failure, round.oneAlone());
            if (answer && failure == null) {
                published.add(event);
            } else if (refusal != null) {
                refused.add(new RelaySettlement.Refusal(event, refusal));
            } else {
                waiting++;
                if (firstFailure == null) {
                    firstFailure = failure == null ? "no answer in time" : failure.getMessage();
                }
            }
        }
        return new RelaySettlement(round, published, refused, waiting, firstFailure, handedOver);
    }

    private AsyncProducer producer(String uri) throws Exception {
        AsyncProducer existing = producers.get(uri);
        if (existing != null) {
            return existing;
        }
        synchronized (producers) {
            AsyncProducer producer = producers.get(uri);
            if (producer == null) {
                // a producer that could not be made is tried again after Kafka's timeout, not at every round: each
                // try logs the client's whole configuration
                if (unmade != null && System.nanoTime() - unmade.at() < handOverNanos) {
                    throw unmade.failure();
                }
                producer = camelContext.getEndpoint(uri).createAsyncProducer();
                // the context starts it now and stops it with itself; one that does not start is not kept there
                try {
                    camelContext.addService(producer, true, true);
                } catch (Exception e) {
                    camelContext.removeService(producer);
                    unmade = new Unmade(System.nanoTime(), e);
                    throw e;
                }
                unmade = null;
                producers.put(uri, producer);
            }
            return producer;
        }
    }

    /**
     * Whether this round's topic has no producer and one could not be made within the last {@code kafka-timeout}: a
     * round then waits for its next poll instead of taking its slice's events to fail them at once
     * (routes/outbox-relay.camel.yaml, step 0). A topic whose producer was made goes on whatever another's does.
     */
    public boolean producerUnavailable(@ExchangeProperty(ENDPOINT) String endpointUri) {
        synchronized (producers) {
            return !producers.containsKey(endpointUri) && unmade != null
                    && System.nanoTime() - unmade.at() < handOverNanos;
        }
    }

    /** The last producer that could not be made, and when. */
    private record Unmade(long at, Exception failure) {
    }
}
