package dev.ingestor.config;

import org.apache.camel.spring.spi.SpringTransactionPolicy;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;

/** The policy behind {@code transacted} in the routes: join or start a database transaction. */
@Configuration(proxyBeanMethods = false)
public class TransactionConfiguration {

    @Bean("PROPAGATION_REQUIRED")
    SpringTransactionPolicy propagationRequired(PlatformTransactionManager transactionManager) {
        SpringTransactionPolicy policy = new SpringTransactionPolicy(transactionManager);
        policy.setPropagationBehaviorName("PROPAGATION_REQUIRED");
        return policy;
    }
}
