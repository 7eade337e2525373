package dev.ingestor.embedded;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node Kafka broker in KRaft mode (broker and controller in one), built from Kafka's own server
 * classes rather than a test library. Its log lives in a folder of ours and is formatted only once, so
 * events written before a restart are still there after it.
 */
public final class EmbeddedKafkaServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafkaServer.class);
    private static final String CONTROLLER = "CONTROLLER";
    /** How long a broker whose start failed is given to stop its threads. */
    private static final Duration STOP_AFTER_FAILED_START = Duration.ofSeconds(30);

    private final KafkaRaftServer server;
    private final String bootstrapServers;
    private final List<Integer> ports;

    private EmbeddedKafkaServer(KafkaRaftServer server, String bootstrapServers, List<Integer> ports) {
        this.server = server;
        this.bootstrapServers = bootstrapServers;
        this.ports = ports;
    }

    /**
     * Starts a broker on 127.0.0.1; a port of 0 picks a free one. Its listeners are PLAINTEXT without
     * authentication, so they (the controller's too) are bound to loopback alone, never to every interface.
     */
    public static EmbeddedKafkaServer start(Path logDir, int port) throws Exception {
        return start(logDir, port, () -> {});
    }

    /**
     * As {@link #start(Path, int)}; {@code afterFatalFault} runs once the broker has stopped after a fatal fault of its
     * own ({@link BrokerFatalFaults}), where Kafka would have ended the JVM.
     */
    public static EmbeddedKafkaServer start(Path logDir, int port, Runnable afterFatalFault) throws Exception {
        Path dir = logDir.toAbsolutePath();
        Files.createDirectories(dir);
        int brokerPort = port > 0 ? port : freePort();
        int controllerPort = freePort();
        Map<String, Object> props = new HashMap<>();
        props.put("process.roles", "broker,controller");
        props.put("node.id", "1");
        props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        props.put("listeners",
                "PLAINTEXT://127.0.0.1:" + brokerPort + "," + CONTROLLER + "://127.0.0.1:" + controllerPort);
        props.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        props.put("controller.listener.names", CONTROLLER);
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER + ":PLAINTEXT");
        props.put("inter.broker.listener.name", "PLAINTEXT");
        props.put("log.dirs", dir.toString());
        props.put("num.partitions", "1");
        props.put("auto.create.topics.enable", "true");
        props.put("offsets.topic.replication.factor", "1");
        props.put("offsets.topic.num.partitions", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("group.initial.rebalance.delay.ms", "0");
        // the log cleaner's dedupe buffer lives on our heap (128 MiB by default); only the small compacted
        // __consumer_offsets topic needs it here
        props.put("log.cleaner.dedupe.buffer.size", String.valueOf(8 * 1024 * 1024));
        KafkaConfig config = new KafkaConfig(props, false);

        if (!Files.exists(dir.resolve("meta.properties"))) {
            LOG.info("formatting embedded Kafka log directory {}", dir);
            new Formatter()
                    .setClusterId(Uuid.randomUuid().toString())
                    .setNodeId(1)
                    .setDirectories(List.of(dir.toString()))
                    .setMetadataLogDirectory(dir.toString())
                    .setControllerListenerName(CONTROLLER)
                    .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                    .setPrintStream(System.out)
                    .run();
        }
        KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
        BrokerFatalFaults.install(() -> {
            server.shutdown();
            server.awaitShutdown();
            LOG.info("embedded Kafka broker stopped after its fatal fault");
            afterFatalFault.run();
        });
        try {
            server.startup();
        } catch (Exception e) {
            stopAfterAFailedStart(server, e);
            throw new IllegalStateException(failedStartMessage(brokerPort, dir, e), e);
        }
        String bootstrap = "127.0.0.1:" + brokerPort;
        LOG.info("embedded Kafka broker ready at {} with its log in {}", bootstrap, dir);
        return new EmbeddedKafkaServer(server, bootstrap, List.of(brokerPort, controllerPort));
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The broker's and the controller's ports. */
    List<Integer> ports() {
        return ports;
    }

    @Override
    public void close() {
        LOG.info("stopping the embedded Kafka broker at {}", bootstrapServers);
        BrokerShutdownNotice.install();
        server.shutdown();
        server.awaitShutdown();
        BrokerFatalFaults.uninstall();
        LOG.info("embedded Kafka broker stopped");
    }

    /**
     * A start that failed part way (the controller up, then the broker's port found taken) leaves the controller's,
     * raft's and network threads running; none is a daemon, so the JVM would never end once the app gave up. They are
     * stopped here, waited for at most {@link #STOP_AFTER_FAILED_START}: nothing else holds the server to stop it.
     */
    private static void stopAfterAFailedStart(KafkaRaftServer server, Exception failure) {
        BrokerShutdownNotice.install();
        FutureTask<Void> stop = new FutureTask<>(() -> {
            server.shutdown();
            server.awaitShutdown();
            return null;
        });
        Thread stopper = new Thread(stop, "embedded-kafka-stop-after-failed-start");
        stopper.setDaemon(true);
        stopper.start();
        try {
            stop.get(STOP_AFTER_FAILED_START.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure.addSuppressed(e);
        } catch (ExecutionException | TimeoutException e) {
            failure.addSuppressed(e);
            LOG.warn("the embedded Kafka broker that failed to start did not stop within {} s: {}",
                    STOP_AFTER_FAILED_START.toSeconds(), e.toString());
        }
    }

    /** What failed, where, and the two ways out: another port, or a broker of one's own. */
    static String failedStartMessage(int brokerPort, Path dir, Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return "the embedded Kafka broker could not start on 127.0.0.1:" + brokerPort + " (ingestor.embedded.kafka"
                + ".port) with its log in " + dir + ": " + cause.getMessage() + ". Free that port or set"
                + " ingestor.embedded.kafka.port to another (0 picks a free one), or use a Kafka of your own with"
                + " ingestor.kafka.bootstrap-servers (then no broker is started here)";
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }
}
