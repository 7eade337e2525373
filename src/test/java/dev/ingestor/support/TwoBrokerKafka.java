package dev.ingestor.support;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.springframework.util.FileSystemUtils;

/**
 * A Kafka cluster of two brokers in this JVM (KRaft; node 1 is also the controller), for what one broker alone
 * cannot show: a partition whose only replica is on node 2 has no leader while node 2 is down, and the partitions
 * on node 1 go on. Started per test, closed by it.
 */
public final class TwoBrokerKafka implements AutoCloseable {

    private final Path dir;
    private final String clusterId = Uuid.randomUuid().toString();
    private final int controllerPort;
    private final int[] brokerPorts;
    private final KafkaRaftServer[] nodes = new KafkaRaftServer[2];

    private TwoBrokerKafka(Path dir, int controllerPort, int[] brokerPorts) {
        this.dir = dir;
        this.controllerPort = controllerPort;
        this.brokerPorts = brokerPorts;
    }

    public static TwoBrokerKafka start() throws Exception {
        TwoBrokerKafka cluster = new TwoBrokerKafka(Files.createTempDirectory("ingestor-test-two-brokers-"),
                FreePorts.outsideTheEphemeralRange(),
                new int[] {FreePorts.outsideTheEphemeralRange(), FreePorts.outsideTheEphemeralRange()});
        try {
            cluster.startNode(1);
            cluster.startNode(2);
        } catch (Exception e) {
            cluster.close(); // a node left running would keep the JVM from ending
            throw e;
        }
        return cluster;
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + brokerPorts[0] + ",127.0.0.1:" + brokerPorts[1];
    }

    public Admin admin() {
        return Admin.create(Map.of("bootstrap.servers", bootstrapServers()));
    }

    /** Stops node {@code node} (1 or 2), as a broker that goes down; {@link #startNode} brings it back. */
    public void stopNode(int node) {
        KafkaRaftServer server = nodes[node - 1];
        if (server != null) {
            server.shutdown();
            server.awaitShutdown();
            nodes[node - 1] = null;
        }
    }

    public void startNode(int node) throws Exception {
        Path logDir = dir.resolve("node-" + node);
        Map<String, Object> props = new HashMap<>();
        String broker = "PLAINTEXT://127.0.0.1:" + brokerPorts[node - 1];
        props.put("node.id", String.valueOf(node));
        props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        props.put("inter.broker.listener.name", "PLAINTEXT");
        if (node == 1) {
            props.put("process.roles", "broker,controller");
            props.put("listeners", broker + ",CONTROLLER://127.0.0.1:" + controllerPort);
        } else {
            props.put("process.roles", "broker");
            props.put("listeners", broker);
        }
        props.put("advertised.listeners", broker);
        props.put("log.dirs", logDir.toString());
        props.put("num.partitions", "1");
        props.put("default.replication.factor", "1");
        props.put("offsets.topic.replication.factor", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("log.cleaner.dedupe.buffer.size", String.valueOf(8 * 1024 * 1024));
        if (!Files.exists(logDir.resolve("meta.properties"))) {
            Formatter formatter = new Formatter().setClusterId(clusterId).setNodeId(node)
                    .setDirectories(List.of(logDir.toString())).setControllerListenerName("CONTROLLER")
                    .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION).setPrintStream(System.out);
            if (node == 1) {
                formatter.setMetadataLogDirectory(logDir.toString());
            }
            formatter.run();
        }
        KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(props, false), Time.SYSTEM);
        server.startup();
        nodes[node - 1] = server;
    }

    @Override
    public void close() throws Exception {
        stopNode(2);
        stopNode(1);
        FileSystemUtils.deleteRecursively(dir);
    }
}
