package dev.ingestor.source.file;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
    private final Map<String, LeaseClusterView> views = new ConcurrentHashMap<>();

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
        LeaseClusterView view = new LeaseClusterView(this, namespace, leases, owner, lease, renewal, onLeadership);
        views.put(namespace, view);
        return view;
    }

    /**
     * The route of {@code namespace} has been initialised: its view may now try for the lease
     * ({@link LeaseClusterView#arm}). Camel's policy makes the view as it initialises the route, when the context
     * starts: a view missing here means the route is not initialised yet, and would never be led.
     */
    void arm(String namespace) {
        LeaseClusterView view = views.get(namespace);
        if (view == null) {
            throw new IllegalStateException("no lease view for " + namespace
                    + ": its route is not initialised yet (leases are armed once the Camel context has started)");
        }
        view.arm();
    }

    /** Whether this instance holds the lease of {@code namespace} now; false for a namespace without a view. */
    boolean leadsNow(String namespace) {
        return isLeader(namespace);
    }
}
