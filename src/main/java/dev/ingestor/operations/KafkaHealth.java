package dev.ingestor.operations;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import dev.ingestor.embedded.KafkaConfiguration.KafkaBootstrap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.stereotype.Component;

/**
 * {@code kafka} in /actuator/health: UP when the cluster answers within two seconds, with its node count. Its
 * client is made at the first check, and made again at the next while it cannot be: Kafka's client refuses to be
 * made while no bootstrap server resolves (a broker's host gone from DNS), which is Kafka being down, never a
 * reason for the app not to start (the outbox keeps the events).
 */
@Component("kafka")
class KafkaHealth implements HealthIndicator, DisposableBean {

    private final String servers;
    private final Properties config = new Properties();
    private Admin admin;

    public KafkaHealth(KafkaBootstrap bootstrap) {
        this.servers = bootstrap.servers();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2000);
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "ingestor-health");
    }

    @Override
    public Health health() {
        try {
            int nodes = admin().describeCluster(new DescribeClusterOptions().timeoutMs(2000)).nodes()
                    .get(3, TimeUnit.SECONDS).size();
            return Health.up().withDetails(Map.of("bootstrapServers", servers, "nodes", nodes)).build();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return Health.down().withDetail("bootstrapServers", servers)
                    .withDetail("error", "Kafka does not answer: " + e.getClass().getSimpleName()).build();
        }
    }

    private synchronized Admin admin() {
        if (admin == null) {
            admin = Admin.create(config);
        }
        return admin;
    }

    @Override
    public synchronized void destroy() {
        if (admin != null) {
            admin.close(java.time.Duration.ofSeconds(2));
        }
    }
}
