package dev.ingestor.embedded;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.KafkaSettings;
import org.apache.camel.component.kafka.KafkaComponent;
import org.apache.camel.spi.ComponentCustomizer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Where Kafka is: {@code ingestor.kafka.bootstrap-servers}, or, when that is empty, an embedded single-node
 * broker started here with its log under the data dir. Camel's kafka component is pointed at it.
 */
@Configuration(proxyBeanMethods = false)
public class KafkaConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaConfiguration.class);

    /** The bootstrap servers every Kafka client of the app uses. */
    public record KafkaBootstrap(String servers, EmbeddedKafkaServer embedded) implements DisposableBean {
        @Override
        public void destroy() {
            if (embedded != null) {
                embedded.close();
            }
        }
    }

    @Bean
    KafkaBootstrap kafkaBootstrap(IngestorProperties properties, KafkaSettings kafka, EmbeddedKafkaProperties embedded,
            ConfigurableApplicationContext context) throws Exception {
        String configured = kafka.getBootstrapServers();
        if (configured != null && !configured.isBlank()) {
            LOG.info("Kafka at {}", configured);
            return new KafkaBootstrap(configured, null);
        }
        // a broker stopped by a fatal fault (a full disk) comes back only with a new start: the app stops in order and
        // ends with status 1, for whatever runs it (compose's restart policy, Kubernetes) to start it again
        EmbeddedKafkaServer server = EmbeddedKafkaServer.start(properties.getDataDir().resolve("kafka"),
                embedded.getPort(), () -> {
                    LOG.error("the embedded Kafka broker has stopped after a fatal fault: the app stops and exits with"
                            + " status 1, to be started again with it");
                    System.exit(SpringApplication.exit(context, () -> 1));
                });
        return new KafkaBootstrap(server.bootstrapServers(), server);
    }

    @Bean
    ComponentCustomizer kafkaBrokers(KafkaBootstrap bootstrap) {
        return ComponentCustomizer.builder(KafkaComponent.class)
                .build(component -> component.getConfiguration().setBrokers(bootstrap.servers()));
    }
}
