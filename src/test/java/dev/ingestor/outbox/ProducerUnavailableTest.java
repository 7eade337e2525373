package dev.ingestor.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultComponent;
import org.apache.camel.support.DefaultEndpoint;
import org.apache.camel.support.DefaultProducer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The relay's wait while no producer can be made holds for a topic without a producer only: one topic whose producer
 * cannot be made (its bootstrap servers do not resolve, say) never holds back another whose producer works. Over a
 * Camel context with a component of its own whose producers either answer every record or refuse to start, as
 * Kafka's client refuses to be made.
 */
class ProducerUnavailableTest {

    private final DefaultCamelContext camel = new DefaultCamelContext();

    @AfterEach
    void stop() {
        camel.stop();
    }

    /** {@code fake:ok} answers every record at once; {@code fake:broken}'s producer does not start. */
    private static final class FakeKafka extends DefaultComponent {
        @Override
        protected Endpoint createEndpoint(String uri, String remaining, Map<String, Object> parameters) {
            return new DefaultEndpoint(uri, this) {
                @Override
                public org.apache.camel.Producer createProducer() {
                    return new DefaultProducer(this) {
                        @Override
                        protected void doStart() {
                            if (remaining.equals("broken")) {
                                throw new IllegalStateException(
                                        "No resolvable bootstrap urls given in bootstrap.servers");
                            }
                        }

                        @Override
                        public void process(Exchange exchange) {
                            // answered: acknowledged
                        }
                    };
                }

                @Override
                public org.apache.camel.Consumer createConsumer(org.apache.camel.Processor processor) {
                    throw new UnsupportedOperationException();
                }
            };
        }
    }

    private static RelayRound round(String topic) {
        return new RelayRound(topic, 0, "test", false, System.nanoTime(),
                List.of(new OutboxEvent(1, UUID.randomUUID(), "k", "{}")));
    }

    @Test
    void aTopicWhoseProducerCannotBeMadeHoldsBackNoTopicWhoseProducerWorks() throws Exception {
        camel.addComponent("fake", new FakeKafka());
        camel.start();
        OutboxRelay relay = new OutboxRelay(camel, new OutboxSettings());

        assertThat(relay.send(round("ok"), "fake:ok").published()).hasSize(1);
        RelaySettlement broken = relay.send(round("broken"), "fake:broken");
        assertThat(broken.published()).isEmpty();
        assertThat(broken.handedOver()).isFalse();
        assertThat(broken.firstFailure()).startsWith("no Kafka producer could be made");

        assertThat(relay.producerUnavailable("fake:broken")).as("the topic without a producer waits").isTrue();
        assertThat(relay.producerUnavailable("fake:ok")).as("the topic with one goes on").isFalse();
        assertThat(relay.send(round("ok"), "fake:ok").published()).hasSize(1);
    }
}
