package dev.ingestor.source.file;

import java.time.Duration;
import java.util.function.BiConsumer;

import org.apache.camel.support.cluster.AbstractCamelClusterService;

/**
 * Camel's cluster service over lease rows in PostgreSQL ({@link RouteLeases}): one {@link LeaseClusterView} per
 * namespace, each the lease on one route. Camel's {@code ClusteredRoutePolicy} runs a route on the instance whose
 * view leads and keeps it stopped on the others. Added to the CamelContext as a service, it stops after the routes
 * when the context stops, and its views give their leases back then.
 */
final class LeaseClusterService extends AbstractCamelClusterService<LeaseClusterView> {

    private final RouteLeases leases;
    private final String owner;
    private final Duration lease;
    private final Duration renewal;
    private final BiConsumer<String, Boolean> onLeadership;

    LeaseClusterService(RouteLeases leases, String owner, Duration lease, Duration renewal,
            BiConsumer<String, Boolean> onLeadership) {
        super("route-leases");
        this.leases = leases;
        this.owner = owner;
        this.lease = lease;
        this.renewal = renewal;
        this.onLeadership = onLeadership;
    }

    @Override
    protected LeaseClusterView createView(String namespace) {
        return new LeaseClusterView(this, namespace, leases, owner, lease, renewal, onLeadership);
    }

    /** Whether this instance holds the lease of {@code namespace} now; false for a namespace without a view. */
    boolean leadsNow(String namespace) {
        return isLeader(namespace);
    }
}
