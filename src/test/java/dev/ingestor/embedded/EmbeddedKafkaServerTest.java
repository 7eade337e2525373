package dev.ingestor.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.ingestor.support.ChildJvm;
import dev.ingestor.support.SlowTest;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

// slow tier: a Kafka broker of its own, started and stopped; the app started in a JVM of its own
@SlowTest
class EmbeddedKafkaServerTest {

    @Test
    void theBrokerAndItsControllerListenOnLoopbackOnly() throws Exception {
        try (EmbeddedKafkaServer broker = EmbeddedKafkaServer.start(Files.createTempDirectory("ingestor-kafka-"), 0)) {
            assertThat(broker.bootstrapServers()).startsWith("127.0.0.1:");
            assertThat(broker.ports()).hasSize(2);
            for (int port : broker.ports()) {
                try (Socket local = new Socket()) {
                    local.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
                }
                for (InetAddress address : EmbeddedDefaultTest.nonLoopbackAddresses()) {
                    try (Socket remote = new Socket()) {
                        assertThatThrownBy(() -> remote.connect(new InetSocketAddress(address, port), 2000))
                                .as("port %d open on %s", port, address).isInstanceOf(IOException.class);
                    }
                }
            }
        }
    }

    /**
     * The broker's port taken by another process: the app's start fails naming ingestor.embedded.kafka.port and the
     * way to an external broker, and its JVM ends. The app runs in a JVM of its own, as only the end of a whole JVM
     * shows that no thread is left. Without the stop after a failed start, the controller's threads (none a daemon)
     * kept the JVM running for good.
     */
    @Test
    void aTakenPortEndsTheStartNamingThePropertyAndTheJvmExits() throws Exception {
        Path work = Files.createTempDirectory("ingestor-kafka-port-");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                AppProcess app = AppProcess.start(work.resolve("app.log"), "--server.port=0",
                        "--ingestor.embedded.kafka.port=" + taken.getLocalPort(),
                        "--ingestor.data-dir=" + work.resolve("data"),
                        "--ingestor.inbox-dir=" + work.resolve("inbox"))) {
            assertThat(app.process().waitFor(3, TimeUnit.MINUTES)).as("the JVM ended").isTrue();
            assertThat(app.process().exitValue()).isNotZero();
            assertThat(app.output()).as("the app's output")
                    .contains(
                            "could not start on 127.0.0.1:" + taken.getLocalPort() + " (ingestor.embedded.kafka.port)")
                    .contains("ingestor.kafka.bootstrap-servers")
                    .doesNotContain(AppProcess.STARTED);
        }
    }

    /**
     * A fatal fault of the broker (a log folder that failed, as on a full disk) stops the broker, not the JVM, and then
     * runs what its starter asked for (the app: an orderly stop and exit, to be started again): Kafka would end the
     * process on the spot. Run in a JVM of its own ({@link FatalBrokerFault}), as only that shows the
     * JVM goes on; without the procedure put in Kafka's place, it ended with status 1.
     */
    @Test
    void aFatalFaultOfTheBrokerStopsTheBrokerAndNotTheJvm() throws Exception {
        ChildJvm.Run child = ChildJvm.of(FatalBrokerFault.class)
                .arguments(Files.createTempDirectory("ingestor-kafka-fault-").toString()).run(Duration.ofMinutes(2));
        String output = child.output();
        assertThat(child.ended()).isTrue();
        assertThat(child.exitCode()).as(output).isZero();
        assertThat(output).contains("met a fatal fault (test: every log folder failed) and stops")
                .contains(FatalBrokerFault.BROKER_GONE_JVM_ALIVE).contains(FatalBrokerFault.AFTER_THE_STOP);
    }

    @Test
    void anLz4CompressedRecordWrittenBeforeARestartIsReadAfterIt() throws Exception {
        Path dir = Files.createTempDirectory("ingestor-kafka-");
        try (EmbeddedKafkaServer broker = EmbeddedKafkaServer.start(dir, 0);
                KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                        "bootstrap.servers", broker.bootstrapServers(), "acks", "all", "enable.idempotence", "true",
                        // lz4 comes from at.yawk.lz4:lz4-java alone (org.lz4:lz4-java is excluded): compression still
                        // works
                        "compression.type", "lz4"),
                        new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>("restart.check", "k", "v")).get();
        }
        try (EmbeddedKafkaServer broker = EmbeddedKafkaServer.start(dir, 0);
                KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                        "bootstrap.servers", broker.bootstrapServers(), "group.id", "check", "auto.offset.reset",
                        "earliest"),
                        new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of("restart.check"));
            ConsumerRecords<String, String> records = ConsumerRecords.empty();
            long deadline = System.currentTimeMillis() + 30_000;
            while (records.isEmpty() && System.currentTimeMillis() < deadline) {
                records = consumer.poll(Duration.ofMillis(500));
            }
            assertThat(records.count()).isEqualTo(1);
            assertThat(records.iterator().next().value()).isEqualTo("v");
        }
    }
}
