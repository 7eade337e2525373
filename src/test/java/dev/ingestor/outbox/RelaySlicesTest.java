package dev.ingestor.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestKafka;
import org.apache.camel.Route;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The relay scaled out, on the real PostgreSQL and Kafka: several relays share a topic by slices of its keys and
 * publish every event once, in order per key; a relay that dies between its send and its settle is taken over only
 * once its lease has run out, and its events go again with their ids; no relay holds a transaction while Kafka is
 * waited on. Each test relays a topic of its own through relay routes it adds (the installed ones serve the
 * configured topics only).
 */
class RelaySlicesTest extends IngestorTestSupport {

    private static final JsonMapper JSON = new JsonMapper();

    @Autowired
    RelayInstaller installer;
    @Autowired
    OutboxWriter writer;
    @Autowired
    OutboxStore store;
    @Autowired
    OutboxRelay relay;
    @Autowired
    TransactionTemplate transactions;
    @Autowired
    io.micrometer.core.instrument.MeterRegistry meters;

    private final List<String> routes = new ArrayList<>();

    @AfterEach
    void removeRelays() throws Exception {
        for (String route : routes) {
            camelContext.getRouteController().stopRoute(route);
            camelContext.removeRoute(route);
        }
    }

    @Test
    void severalRelaysPublishEveryEventOnceInTheOrderOfItsKey() throws Exception {
        String topic = newTopic("slices", 4);
        int keys = 60;
        int perKey = 25;
        for (int n = 1; n <= 4; n++) {
            relay(topic, n);
        }
        // written while the relays run, in many transactions, the keys interleaved
        Set<String> written = new HashSet<>();
        for (int seq = 0; seq < perKey; seq++) {
            List<OutboxWriter.Event> events = new ArrayList<>();
            for (int k = 0; k < keys; k++) {
                UUID id = UUID.randomUUID();
                written.add(id.toString());
                events.add(new OutboxWriter.Event(id, "key-" + k,
                        "{\"event_id\":\"" + id + "\",\"key\":\"key-" + k + "\",\"seq\":" + seq + "}"));
            }
            transactions.executeWithoutResult(status -> writer.write(topic, events));
        }
        awaitDrained(topic, Duration.ofSeconds(60));

        Map<String, List<Integer>> seqs = new TreeMap<>();
        List<String> sent = new ArrayList<>();
        for (ConsumerRecord<String, String> record : TestKafka.readAll(topic, Duration.ofSeconds(2))) {
            JsonNode event = JSON.readTree(record.value());
            sent.add(event.get("event_id").asString());
            seqs.computeIfAbsent(record.key(), k -> new ArrayList<>()).add(event.get("seq").asInt());
        }
        assertThat(sent).as("every event once").doesNotHaveDuplicates().hasSize(keys * perKey);
        assertThat(Set.copyOf(sent)).isEqualTo(written);
        List<Integer> inOrder = java.util.stream.IntStream.range(0, perKey).boxed().toList();
        assertThat(seqs).hasSize(keys).allSatisfy((key, seen) -> assertThat(seen).as(key).isEqualTo(inOrder));
        assertThat(jdbc.queryForList("SELECT DISTINCT owner FROM outbox_lease WHERE topic = ?", String.class, topic))
                .as("the slices were served by several relays").hasSizeGreaterThan(1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_published WHERE topic = ?", Long.class, topic))
                .as("every published event in the archive").isEqualTo((long) keys * perKey);
    }

    @Test
    void aRelayThatDiedBetweenSendAndSettleIsTakenOverOnceItsLeaseRunsOut() throws Exception {
        String topic = newTopic("takeover", 1);
        List<String> keys = keysOfOneSlice(3);
        List<OutboxWriter.Event> events = new ArrayList<>();
        for (int seq = 0; seq < 4; seq++) {
            for (String key : keys) {
                UUID id = UUID.randomUUID();
                events.add(new OutboxWriter.Event(id, key, "{\"event_id\":\"" + id + "\",\"seq\":" + seq + "}"));
            }
        }
        transactions.executeWithoutResult(status -> writer.write(topic, events));

        // a relay of another instance takes the slice and sends its events, then dies before it settles
        RelayRound round = transactions.execute(status -> store.take(topic, "gone-instance/outbox-relay-x-1"));
        assertThat(round.events()).hasSize(events.size());
        RelaySettlement answers = relay.send(round,
                "kafka:" + topic + "?requestRequiredAcks=all&enableIdempotence=true");
        assertThat(answers.published()).hasSize(events.size());
        // its lease runs out in two seconds (a real one lasts the producer's delivery timeout and more)
        jdbc.update("UPDATE outbox_lease SET expires_at = now() + interval '2 seconds' WHERE topic = ? AND slice = ?",
                topic, round.slice());
        long leaseEnds = System.nanoTime() + Duration.ofMillis(1500).toNanos();

        relay(topic, 1);
        while (System.nanoTime() < leaseEnds) {
            assertThat(pending(topic)).as("the slice is not taken while its lease runs").isEqualTo(events.size());
            Thread.sleep(100);
        }
        awaitDrained(topic, Duration.ofSeconds(30));

        Map<String, List<Integer>> seqs = new TreeMap<>();
        List<String> sent = new ArrayList<>();
        for (ConsumerRecord<String, String> record : TestKafka.readAll(topic, Duration.ofSeconds(2))) {
            sent.add(new String(record.headers().lastHeader("event_id").value(),
                    java.nio.charset.StandardCharsets.UTF_8));
            seqs.computeIfAbsent(record.key(), k -> new ArrayList<>()).add(JSON.readTree(record.value()).get("seq")
                    .asInt());
        }
        List<String> ids = events.stream().map(e -> e.eventId().toString()).toList();
        List<String> twice = new ArrayList<>(ids);
        twice.addAll(ids);
        assertThat(sent).as("each event sent by the dead relay, then again with its id by the one that took over")
                .containsExactlyInAnyOrderElementsOf(twice);
        assertThat(seqs).allSatisfy((key, seen) -> assertThat(seen).as(key).containsExactly(0, 1, 2, 3, 0, 1, 2, 3));
        assertThat(jdbc.queryForObject("SELECT owner FROM outbox_lease WHERE topic = ? AND slice = ?", String.class,
                topic, round.slice())).endsWith("/relay-" + topic + "-1");
    }

    // slow tier: the Kafka broker stopped and started
    @SlowTest
    @Test
    void noTransactionIsHeldWhileKafkaIsWaitedOn() throws Exception {
        String topic = newTopic("slow", 1);
        relay(topic, 1);
        write(topic, "k");
        awaitDrained(topic, Duration.ofSeconds(30)); // the producer knows the topic: a send now waits for the broker
        TestKafka.stop();
        try {
            write(topic, "k");
            // the relay is in its round, waiting for Kafka's answer (up to the producer's delivery timeout): its
            // lease is seen held, or, were it in a transaction, its session is seen idle in it
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> leaseHeld(topic) || !idleInTransactionOnTheOutbox().isEmpty());
            long until = System.nanoTime() + Duration.ofSeconds(4).toNanos();
            while (System.nanoTime() < until) {
                assertThat(idleInTransactionOnTheOutbox())
                        .as("sessions idle in a transaction while the relay waits for Kafka").isEmpty();
                assertThat(pending(topic)).isEqualTo(1);
                Thread.sleep(200);
            }
            assertThat(leaseHeld(topic)).as("the relay still waits for Kafka, holding the slice").isTrue();
        } finally {
            TestKafka.start();
        }
        awaitDrained(topic, Duration.ofSeconds(90));
    }

    /**
     * Events waiting for a topic that is no longer configured (its setting renamed while they were pending): seen by
     * the gauges, and relayed to the topic they were written for, where before no relay, gauge or alert saw them.
     */
    @Test
    void eventsWaitingForATopicNoLongerConfiguredAreSeenAndRelayedToIt() throws Exception {
        // housekeeping relays such topics too, at a moment of its own (its first run is 10 s after the start): not
        // while this test looks at the events waiting
        withRouteStopped("housekeeping", this::seenAndRelayedToTheirTopic);
    }

    private void seenAndRelayedToTheirTopic() throws Exception {
        String topic = newTopic("earlier", 1);
        write(topic, "k-1");
        write(topic, "k-2");
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            meters.find("ingestor.jobs").gauges().forEach(io.micrometer.core.instrument.Gauge::value);
            io.micrometer.core.instrument.Gauge waiting = meters.find("ingestor.outbox.pending").tag("topic", topic)
                    .gauge();
            return waiting != null && waiting.value() == 2;
        });

        routes.addAll(installer.relayEarlierTopics());
        awaitDrained(topic, Duration.ofSeconds(60));
        assertThat(TestKafka.readAll(topic, Duration.ofSeconds(2))).extracting(ConsumerRecord::key)
                .containsExactlyInAnyOrder("k-1", "k-2");
        assertThat(installer.relayEarlierTopics()).as("relayed once").isEmpty();
    }

    /**
     * Events for a topic no longer configured that arrive after the start (an instance of the earlier settings still
     * writing during a rolling deploy) are relayed too: housekeeping asks again at each run.
     */
    @Test
    void eventsForATopicNoLongerConfiguredThatArriveAfterTheStartAreRelayedByHousekeeping() throws Exception {
        String topic = newTopic("earlier-later", 1);
        write(topic, "late-1");
        java.util.Set<String> before = earlierRelays();

        // one run of housekeeping's steps, as its timer runs them
        boolean running = camelContext.getRouteController().getRouteStatus("housekeeping").isStarted();
        camelContext.getRouteController().startRoute("housekeeping");
        org.apache.camel.Exchange run = new org.apache.camel.support.DefaultExchange(camelContext);
        camelContext.getRoute("housekeeping").getConsumer().getProcessor().process(run);
        if (!running) {
            camelContext.getRouteController().stopRoute("housekeeping");
        }
        assertThat(run.getException()).isNull();
        java.util.Set<String> added = earlierRelays();
        added.removeAll(before);
        routes.addAll(added);

        assertThat(added).isNotEmpty();
        awaitDrained(topic, Duration.ofSeconds(60));
        assertThat(TestKafka.readAll(topic, Duration.ofSeconds(2))).extracting(ConsumerRecord::key)
                .containsExactly("late-1");
    }

    private java.util.Set<String> earlierRelays() {
        return camelContext.getRoutes().stream().map(org.apache.camel.Route::getRouteId)
                .filter(id -> id.startsWith(RelayInstaller.EARLIER_TOPIC_RELAYS))
                .collect(java.util.stream.Collectors.toCollection(java.util.HashSet::new));
    }

    /**
     * While events flow every slice has some: a relay's take then asks the outbox about one slice, the first free
     * one in order, not about every free slice (under a large file that was 20 ms a round, past the events the
     * relays had deleted since the last vacuum).
     */
    @Test
    void aTakeAsksTheOutboxAboutTheFirstFreeSliceOnly() {
        String topic = "probe-" + UUID.randomUUID();
        List<OutboxWriter.Event> events = new ArrayList<>();
        for (int k = 0; k < 2000; k++) {
            UUID id = UUID.randomUUID();
            events.add(new OutboxWriter.Event(id, "key-" + k, "{\"event_id\":\"" + id + "\"}"));
        }
        transactions.executeWithoutResult(status -> writer.write(topic, events));
        // the lease rows of the topic's slices, made by a first take (no relay route serves this topic)
        assertThat(store.take(topic, "probe/1")).isNotNull();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_lease WHERE topic = ? AND NOT EXISTS"
                + " (SELECT 1 FROM outbox o WHERE o.topic = outbox_lease.topic AND o.slice = outbox_lease.slice)",
                Long.class, topic)).as("every slice has events").isZero();

        List<String> plan = transactions.execute(status -> {
            status.setRollbackOnly();
            return jdbc.queryForList("EXPLAIN (ANALYZE, COSTS OFF) " + OutboxStore.TAKE_SLICE, String.class,
                    "probe/2", 30.0, topic);
        });
        String probe = plan.stream().filter(line -> line.contains("on outbox o")).findFirst().orElseThrow();
        assertThat(probe).as(String.join("\n", plan)).contains("loops=1)");
    }

    private boolean leaseHeld(String topic) {
        return jdbc.queryForObject("SELECT count(*) FROM outbox_lease WHERE topic = ? AND expires_at > now()",
                Long.class, topic) == 1;
    }

    /** Sessions in a transaction, their last statement one of the outbox's, idle for more than a moment. */
    private List<String> idleInTransactionOnTheOutbox() {
        return jdbc.queryForList("SELECT state || ': ' || query FROM pg_stat_activity"
                + " WHERE datname = current_database() AND state LIKE 'idle in transaction%'"
                + " AND state_change < now() - interval '500 milliseconds' AND query LIKE '%outbox%'", String.class);
    }

    private void write(String topic, String key) {
        UUID id = UUID.randomUUID();
        transactions.executeWithoutResult(status -> writer.write(topic,
                List.of(new OutboxWriter.Event(id, key, "{\"event_id\":\"" + id + "\"}"))));
    }

    private void relay(String topic, int n) throws Exception {
        String route = "relay-" + topic + "-" + n;
        installer.add(route, topic, n);
        routes.add(route);
        Route added = camelContext.getRoute(route);
        assertThat(added).isNotNull();
    }

    private long pending(String topic) {
        return jdbc.queryForObject("SELECT count(*) FROM outbox WHERE topic = ?", Long.class, topic);
    }

    private void awaitDrained(String topic, Duration within) {
        await().atMost(within).until(() -> pending(topic) == 0);
    }

    /** A topic of its own with {@code partitions} partitions. */
    private static String newTopic(String prefix, int partitions) throws Exception {
        String topic = prefix + "-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", TestKafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
        }
        return topic;
    }

    /** Keys whose events fall in one slice (the outbox's slice column, spelt again). */
    private List<String> keysOfOneSlice(int count) {
        return jdbc.queryForList("SELECT 'k' || g FROM generate_series(0, 100000) g"
                + " WHERE (hashtext('k' || g)::bigint + 2147483648) % outbox_slice_count() = 0 ORDER BY g LIMIT ?",
                String.class, count);
    }
}
