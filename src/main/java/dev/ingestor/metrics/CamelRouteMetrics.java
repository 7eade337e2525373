package dev.ingestor.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.component.micrometer.eventnotifier.MicrometerRouteEventNotifier;
import org.apache.camel.component.micrometer.routepolicy.MicrometerRoutePolicyFactory;
import org.apache.camel.spring.boot.CamelContextConfiguration;
import org.springframework.stereotype.Component;

/**
 * Camel's route metrics in the application's meter registry: {@code camel_exchanges_*{routeId}} and the route
 * timers from camel-micrometer's route policy, and the {@code camel_routes_*} gauges from its route event notifier.
 *
 * <p>This is what camel-micrometer-starter's auto-configuration does with its defaults, written here because
 * the starter is not served for Camel 4.22 by the repository this project builds from (see
 * {@code camel-micrometer.version} in pom.xml); when it is, this class goes and the starter comes back. Camel's
 * exchange event notifier stays off: its timers per endpoint repeat what the route metrics say, and on every
 * exchange it searched the whole meter registry for its gauge (about 4% of the CPU of a small file's intake).
 */
@Component
class CamelRouteMetrics implements CamelContextConfiguration {

    private final MeterRegistry registry;

    CamelRouteMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void beforeApplicationStart(CamelContext context) {
        MicrometerRoutePolicyFactory routePolicies = new MicrometerRoutePolicyFactory();
        routePolicies.setCamelContext(context);
        routePolicies.setMeterRegistry(registry);
        context.addRoutePolicyFactory(routePolicies);

        MicrometerRouteEventNotifier routeEvents = new MicrometerRouteEventNotifier();
        routeEvents.setCamelContext(context);
        routeEvents.setMeterRegistry(registry);
        context.getManagementStrategy().addEventNotifier(routeEvents);
    }

    @Override
    public void afterApplicationStart(CamelContext context) {
    }
}
