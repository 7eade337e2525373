package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadPoolExecutor;

import dev.ingestor.support.IngestorTestSupport;
import org.apache.camel.LoggingLevel;
import org.apache.camel.Navigate;
import org.apache.camel.Processor;
import org.apache.camel.processor.ThreadsProcessor;
import org.apache.camel.processor.errorhandler.RedeliveryPolicy;
import org.apache.camel.util.concurrent.ThreadPoolRejectedPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the routes name by reference instead of by number (so they stay valid against Camel's YAML DSL schema)
 * carries the configured numbers: the redelivery policies IngestorTestSupport configures and each file drop's
 * thread pool at its supplier's concurrency (default 4).
 */
@Timeout(120)
class RouteReferencesWiringTest extends IngestorTestSupport {

    @Test
    void redeliveryPoliciesCarryTheConfiguredNumbers() {
        RedeliveryPolicy intake = camelContext.getRegistry().lookupByNameAndType("intakeRedeliveryPolicy",
                RedeliveryPolicy.class);
        assertThat(intake.getMaximumRedeliveries()).isEqualTo(3);
        assertThat(intake.getRedeliveryDelay()).isEqualTo(50);
        assertThat(intake.getMaximumRedeliveryDelay()).isEqualTo(200);
        assertThat(intake.isUseExponentialBackOff()).isTrue();
        assertThat(intake.getBackOffMultiplier()).isEqualTo(2.0);
        assertThat(intake.getRetryAttemptedLogLevel()).isEqualTo(LoggingLevel.WARN);
        assertThat(intake.isLogExhausted()).isFalse();
        assertThat(intake.isAsyncDelayedRedelivery()).isFalse();

        RedeliveryPolicy validation = camelContext.getRegistry().lookupByNameAndType("validationRedeliveryPolicy",
                RedeliveryPolicy.class);
        assertThat(validation.getMaximumRedeliveries()).isEqualTo(2);
        assertThat(validation.getRedeliveryDelay()).isEqualTo(100);
        assertThat(validation.isUseExponentialBackOff()).isFalse();
        assertThat(validation.isAsyncDelayedRedelivery()).isTrue();

        RedeliveryPolicy processing = camelContext.getRegistry().lookupByNameAndType("processingRedeliveryPolicy",
                RedeliveryPolicy.class);
        assertThat(processing.getMaximumRedeliveries()).isEqualTo(3);
        assertThat(processing.getRedeliveryDelay()).isEqualTo(100);
        assertThat(processing.isUseExponentialBackOff()).isFalse();
        assertThat(processing.isAsyncDelayedRedelivery()).isTrue();
    }

    @Test
    void eachFileDropRunsOnItsSuppliersConcurrency() {
        for (String supplier : List.of("ACME", "GLOBEX")) {
            List<ThreadsProcessor> threads = new ArrayList<>();
            collect(camelContext.getRoute("file-drop-" + supplier).navigate(), threads);
            assertThat(threads).as("threads step of file-drop-%s", supplier).hasSize(1);
            assertThat(threads.get(0).getExecutorService()).isInstanceOfSatisfying(ThreadPoolExecutor.class, pool -> {
                assertThat(pool.getCorePoolSize()).isEqualTo(4);
                assertThat(pool.getMaximumPoolSize()).isEqualTo(4);
            });
            assertThat(threads.get(0).getRejectedPolicy()).isEqualTo(ThreadPoolRejectedPolicy.CallerRuns);
        }
    }

    @SuppressWarnings("unchecked")
    private static void collect(Navigate<Processor> node, List<ThreadsProcessor> found) {
        if (node == null || !node.hasNext()) {
            return;
        }
        for (Processor child : node.next()) {
            if (child instanceof ThreadsProcessor threads) {
                found.add(threads);
            }
            if (child instanceof Navigate<?> nested) {
                collect((Navigate<Processor>) nested, found);
            }
        }
    }
}
