package dev.ingestor.support;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A live consumer of a topic from its current end: a thread of its own notes when each event arrives, by the job
 * named in its payload ({@code job_id}), in {@link System#nanoTime()}. For timing the way of a push to its event.
 */
public final class LiveEvents implements AutoCloseable {

    private static final Pattern JOB_ID = Pattern.compile("\"job_id\"\\s*:\\s*\"([0-9a-fA-F-]{36})\"");

    private final KafkaConsumer<String, String> consumer;
    private final Map<UUID, Long> arrivals = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicLong read = new java.util.concurrent.atomic.AtomicLong();
    private volatile long lastArrival;
    private final Thread reader;
    private volatile boolean open = true;

    /** Subscribes to {@code topic}, waits until it reads from the topic's end, and starts noting arrivals. */
    public LiveEvents(String topic) {
        consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", TestKafka.bootstrapServers(), "group.id",
                "live-" + UUID.randomUUID(), "auto.offset.reset", "latest", "enable.auto.commit", "false",
                "fetch.max.wait.ms", "10"), new StringDeserializer(), new StringDeserializer());
        try {
            consumer.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + 60_000;
            while (consumer.assignment().isEmpty()) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("no partition of " + topic + " assigned within 60 s");
                }
                consumer.poll(Duration.ofMillis(100));
            }
            consumer.seekToEnd(consumer.assignment());
            consumer.assignment().forEach(consumer::position);
        } catch (RuntimeException e) {
            consumer.close();
            throw e;
        }
        reader = new Thread(this::read, "live-events-" + topic);
        reader.setDaemon(true);
        reader.start();
    }

    private void read() {
        while (open) {
            try {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(50))) {
                    long now = System.nanoTime();
                    Matcher job = JOB_ID.matcher(record.value());
                    if (job.find()) {
                        arrivals.putIfAbsent(UUID.fromString(job.group(1)), now);
                    }
                    lastArrival = now;
                    read.incrementAndGet();
                }
            } catch (org.apache.kafka.common.errors.WakeupException closing) {
                return;
            } catch (RuntimeException e) {
                // a reader that died would look like events that never came: say why
                System.err.println("live events reader stopped: " + e);
                return;
            }
        }
    }

    /** When the first event of {@code jobId} arrived ({@link System#nanoTime()}), or null. */
    public Long arrival(UUID jobId) {
        return arrivals.get(jobId);
    }

    /** How many records were read since the start (from the topic's end then; an event sent twice counts twice). */
    public long eventsRead() {
        return read.get();
    }

    /** When the last event read arrived ({@link System#nanoTime()}), or 0 before the first. */
    public long lastArrival() {
        return lastArrival;
    }

    /** How many jobs have an event here. */
    public int jobsSeen() {
        return arrivals.size();
    }

    /** Waits up to {@code max} for an event of {@code jobId}; its arrival, or null. */
    public Long awaitArrival(UUID jobId, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (System.nanoTime() < deadline) {
            Long at = arrivals.get(jobId);
            if (at != null) {
                return at;
            }
            Thread.sleep(5);
        }
        return arrivals.get(jobId);
    }

    @Override
    public void close() throws InterruptedException {
        open = false;
        consumer.wakeup();
        reader.join(5000);
        consumer.close();
    }
}
