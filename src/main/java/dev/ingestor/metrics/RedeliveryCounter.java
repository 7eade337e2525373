package dev.ingestor.metrics;

import org.apache.camel.CamelContext;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.spi.CamelEvent.ExchangeRedeliveryEvent;
import org.apache.camel.spring.boot.CamelContextConfiguration;
import org.apache.camel.support.EventNotifierSupport;
import org.springframework.stereotype.Component;

/** Counts Camel's redelivery attempts per route into {@code ingestor_redeliveries_total}. */
@Component
class RedeliveryCounter extends EventNotifierSupport implements CamelContextConfiguration {

    private final IngestorMetrics metrics;

    public RedeliveryCounter(IngestorMetrics metrics) {
        this.metrics = metrics;
        setIgnoreCamelContextEvents(true);
        setIgnoreRouteEvents(true);
        setIgnoreServiceEvents(true);
        setIgnoreStepEvents(true);
        setIgnoreExchangeCreatedEvent(true);
        setIgnoreExchangeCompletedEvent(true);
        setIgnoreExchangeFailedEvents(true);
        setIgnoreExchangeSendingEvents(true);
        setIgnoreExchangeSentEvents(true);
    }

    @Override
    public boolean isEnabled(CamelEvent event) {
        return event instanceof ExchangeRedeliveryEvent;
    }

    @Override
    public void notify(CamelEvent event) {
        if (event instanceof ExchangeRedeliveryEvent redelivery) {
            String route = redelivery.getExchange().getFromRouteId();
            metrics.redelivery(route);
        }
    }

    @Override
    public void beforeApplicationStart(CamelContext camelContext) {
        camelContext.getManagementStrategy().addEventNotifier(this);
    }

    @Override
    public void afterApplicationStart(CamelContext camelContext) {
        // nothing
    }
}
