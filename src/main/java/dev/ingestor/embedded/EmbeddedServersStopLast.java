package dev.ingestor.embedded;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.stereotype.Component;

/**
 * The embedded servers (PostgreSQL and the Kafka broker) stop after every other part of the app: after Camel's
 * routes and workers, and after the instance has handed back the jobs it holds
 * ({@code dev.ingestor.job.JobClaims#releaseOnShutdown}), which needs the database. Spring destroys a bean only
 * after the beans that depend on it, so when the context starts to close, every singleton the servers do not
 * need themselves is made a dependent of them. Beans that reach the database through the DataSource already
 * are; the rest (the broker's users, the hand-back's neighbours) are by this. A context whose start failed is
 * torn down without this event: there the DataSource alone orders PostgreSQL after its users.
 */
@Component
class EmbeddedServersStopLast implements ApplicationListener<ContextClosedEvent> {

    private static final List<Class<?>> SERVERS = List.of(EmbeddedPostgres.class,
            KafkaConfiguration.KafkaBootstrap.class);

    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        if (event.getApplicationContext() instanceof ConfigurableApplicationContext context) {
            stopLast(context.getBeanFactory());
        }
    }

    static void stopLast(ConfigurableListableBeanFactory beans) {
        List<String> servers = SERVERS.stream()
                .flatMap(type -> Stream.of(beans.getBeanNamesForType(type, false, false)))
                .toList();
        for (String server : servers) {
            Set<String> needed = neededBy(beans, server);
            for (String other : beans.getSingletonNames()) {
                if (!servers.contains(other) && !needed.contains(other)) {
                    beans.registerDependentBean(server, other);
                }
            }
        }
    }

    /** The beans {@code bean} depends on, directly or through others: they must outlive it, never the reverse. */
    private static Set<String> neededBy(ConfigurableListableBeanFactory beans, String bean) {
        Set<String> needed = new HashSet<>();
        Deque<String> next = new ArrayDeque<>(List.of(bean));
        while (!next.isEmpty()) {
            for (String dependency : beans.getDependenciesForBean(next.pop())) {
                if (needed.add(dependency)) {
                    next.push(dependency);
                }
            }
        }
        return needed;
    }
}
