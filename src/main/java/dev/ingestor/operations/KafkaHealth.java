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

/** {@code kafka} in /actuator/health: UP when the cluster answers within two seconds, with its node count. */
@Component("kafka")
class KafkaHealth implements HealthIndicator, DisposableBean {

    private final String servers;
    private final Admin admin;

    public KafkaHealth(KafkaBootstrap bootstrap) {
        this.servers = bootstrap.servers();
        Properties config = new Properties();
        config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2000);
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "ingestor-health");
        this.admin = Admin.create(config);
    }

    @Override
    public Health health() {
        try {
            int nodes = admin.describeCluster(new DescribeClusterOptions().timeoutMs(2000)).nodes()
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

    @Override
    public void destroy() {
        admin.close(java.time.Duration.ofSeconds(2));
    }
}
