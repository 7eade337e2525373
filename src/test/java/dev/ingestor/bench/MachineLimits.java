package dev.ingestor.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Future;
import javax.sql.DataSource;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * What the machine itself can do, measured by a benchmark in the same run as its figures, against the same
 * PostgreSQL, data folder and Kafka broker, so that every figure reads as a fraction of the machine's limit
 * rather than as an absolute number that moves with whatever else runs on the machine:
 * <ul>
 * <li>durable commits: single-row INSERTs, one transaction each, {@code synchronous_commit=on};</li>
 * <li>fsyncs: a 4 KiB write and {@code FileChannel.force} in a folder;</li>
 * <li>SHA-256 on one core;</li>
 * <li>indexed rows: rows with a unique text key and a 200-byte text, 1,000 per statement (arrays), one commit
 *     per statement, on one connection: the least work one record of a file needs once it is applied;</li>
 * <li>Kafka: 300-byte records with keys, {@code acks=all} and the idempotent producer, as fast as one producer
 *     gets them acknowledged: what the relay needs per event.</li>
 * </ul>
 * Each measurement runs for a few seconds (or a fixed amount of work) and answers a rate per second.
 */
final class MachineLimits {

    private MachineLimits() {
    }

    /** One row per transaction, as fast as one connection can commit them: what a durable commit costs here. */
    static double commitsPerSecond(DataSource dataSource) throws Exception {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            s.execute("SET synchronous_commit = on");
            // a real table, not a temporary one: temporary tables are not WAL-logged, so their commits flush nothing
            s.execute("CREATE TABLE IF NOT EXISTS bench_commit (id bigint PRIMARY KEY, at timestamptz DEFAULT now())");
            s.execute("TRUNCATE bench_commit");
            long n = 0;
            long start = System.nanoTime();
            long end = start + 3_000_000_000L;
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO bench_commit (id) VALUES (?)")) {
                while (System.nanoTime() < end) {
                    insert.setLong(1, n++);
                    insert.executeUpdate();
                }
            }
            double rate = n / ((System.nanoTime() - start) / 1e9);
            s.execute("DROP TABLE bench_commit");
            return rate;
        }
    }

    /**
     * Rows with a unique text key and a 200-byte text, inserted 1,000 per statement from arrays (as the
     * application sends its batches), one commit per statement, for {@code rows} rows on one connection.
     */
    static double indexedRowsPerSecond(DataSource dataSource, int rows) throws Exception {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            s.execute("CREATE TABLE IF NOT EXISTS bench_rows (key text PRIMARY KEY, body text NOT NULL)");
            s.execute("TRUNCATE bench_rows");
            String body = "x".repeat(200);
            String[] keys = new String[1000];
            String[] bodies = new String[1000];
            Arrays.fill(bodies, body);
            long start = System.nanoTime();
            try (PreparedStatement insert = c.prepareStatement(
                    "INSERT INTO bench_rows (key, body) SELECT * FROM unnest(?::text[], ?::text[])")) {
                for (int done = 0; done < rows; done += keys.length) {
                    for (int i = 0; i < keys.length; i++) {
                        keys[i] = "SRC-" + (done + i);
                    }
                    Array k = c.createArrayOf("text", keys);
                    Array b = c.createArrayOf("text", bodies);
                    insert.setArray(1, k);
                    insert.setArray(2, b);
                    insert.executeUpdate();
                }
            }
            double rate = rows / ((System.nanoTime() - start) / 1e9);
            s.execute("DROP TABLE bench_rows");
            return rate;
        }
    }

    /** A 4 KiB write and FileChannel.force in {@code folder}, over and over: what one fsynced raw file costs. */
    static double fsyncsPerSecond(Path folder) throws IOException {
        Files.createDirectories(folder);
        Path file = folder.resolve("bench-fsync.tmp");
        ByteBuffer block = ByteBuffer.allocate(4096);
        long n = 0;
        long start = System.nanoTime();
        long end = start + 3_000_000_000L;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            while (System.nanoTime() < end) {
                block.clear();
                channel.write(block, (n % 256) * 4096);
                channel.force(true);
                n++;
            }
        } finally {
            Files.deleteIfExists(file);
        }
        return n / ((System.nanoTime() - start) / 1e9);
    }

    /** SHA-256 of 4 KiB blocks on one core, in MB (10^6 bytes) per second. */
    static double sha256MegabytesPerSecond() throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[] block = new byte[4096];
        Arrays.fill(block, (byte) 'x');
        long bytes = 0;
        long start = System.nanoTime();
        long end = start + 2_000_000_000L;
        while (System.nanoTime() < end) {
            sha.update(block);
            sha.digest();
            bytes += block.length;
        }
        return bytes / 1e6 / ((System.nanoTime() - start) / 1e9);
    }

    /**
     * {@code records} keyed 300-byte records sent by one idempotent producer with {@code acks=all} to a fresh topic,
     * per second from the first send to the last acknowledgement.
     */
    static double kafkaRecordsPerSecond(String bootstrapServers, int records) throws Exception {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        String topic = "bench-limit-" + UUID.randomUUID();
        String payload = "y".repeat(300);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            // the topic is created by the first send; not timed
            producer.send(new ProducerRecord<>(topic, "warm", payload)).get();
            long start = System.nanoTime();
            Future<RecordMetadata> last = null;
            for (int i = 0; i < records; i++) {
                last = producer.send(new ProducerRecord<>(topic, "ACME:SRC-" + i, payload));
            }
            producer.flush();
            last.get();
            return records / ((System.nanoTime() - start) / 1e9);
        }
    }

}
