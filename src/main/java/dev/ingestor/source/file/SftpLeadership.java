package dev.ingestor.source.file;

import java.time.Duration;

import dev.ingestor.config.InstanceId;
import dev.ingestor.metrics.IngestorMetrics;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.RuntimeCamelException;
import org.apache.camel.impl.cluster.ClusteredRoutePolicy;
import org.apache.camel.spi.ExceptionHandler;
import org.apache.camel.spi.RoutePolicy;
import org.springframework.stereotype.Component;

/**
 * One poller per supplier across instances: each SFTP supplier route runs on the one instance that holds its lease
 * ({@code route_leader}), so a supplier's server sees one login and one listing per poll however many instances
 * run. Camel's {@link ClusteredRoutePolicy} starts and stops the route as leadership comes and goes; the leadership
 * is {@link LeaseClusterService}'s, over lease rows in PostgreSQL. The poll strategy asks {@link #leadsNow} before
 * every poll as well, so a poll never begins on an instance whose lease could not be confirmed, even before the
 * policy has stopped the route.
 */
@Component
public class SftpLeadership {

    private final LeaseClusterService service;
    private final IngestorMetrics metrics;
    private boolean serviceAdded;
    private volatile CamelContext camelContext;

    public SftpLeadership(RouteLeases leases, InstanceId instanceId, SftpSettings settings, IngestorMetrics metrics) {
        Duration lease = settings.getLeaderLease();
        Duration renewal = settings.getLeaderRenewal();
        if (renewal == null || renewal.toMillis() <= 0) {
            throw new IllegalStateException("ingestor.sftp.leader-renewal must be positive, was " + renewal);
        }
        if (lease == null || lease.compareTo(renewal.multipliedBy(3)) < 0) {
            throw new IllegalStateException("ingestor.sftp.leader-lease (" + lease + ") must be at least three times"
                    + " ingestor.sftp.leader-renewal (" + renewal + "): the holder stops polling a renewal before the"
                    + " lease runs out, and must get more than one chance to renew");
        }
        this.metrics = metrics;
        this.service = new LeaseClusterService(leases, instanceId.value(), lease, renewal, this::leadershipChanged);
    }

    /**
     * The route policy of the SFTP route {@code routeId}: the route starts on this instance once it holds the
     * route's lease and stops when it loses it. The lease service joins the CamelContext on the first call.
     */
    synchronized RoutePolicy policyFor(CamelContext camelContext, String routeId) throws Exception {
        if (!serviceAdded) {
            this.camelContext = camelContext;
            camelContext.addService(service);
            serviceAdded = true;
        }
        metrics.sftpLeader(supplier(routeId), false);
        ClusteredRoutePolicy policy = ClusteredRoutePolicy.forNamespace(service, routeId);
        policy.setCamelContext(camelContext);
        policy.setExceptionHandler(new Rethrow());
        return policy;
    }

    /**
     * What the policy meets starting or stopping the route is thrown on to the lease's view (LeaseClusterView), not
     * only logged as Camel's default handler does: a route that did not start on leadership gained would otherwise
     * leave this instance holding the lease with nobody polling the supplier's server. The view gives the lease back
     * and tries again later.
     */
    private static final class Rethrow implements ExceptionHandler {

        @Override
        public void handleException(Throwable exception) {
            throw RuntimeCamelException.wrapRuntimeCamelException(exception);
        }

        @Override
        public void handleException(String message, Throwable exception) {
            throw new RuntimeCamelException(message, exception);
        }

        @Override
        public void handleException(String message, Exchange exchange, Throwable exception) {
            throw new RuntimeCamelException(message, exception);
        }
    }

    /**
     * The route {@code routeId} has been initialised (its policy made its view and listens): its lease may now be
     * taken. Called once the context has started; before that the route has no view (LeaseClusterService.arm).
     */
    void routeAdded(String routeId) {
        service.arm(routeId);
    }

    /**
     * Before Camel's policy starts or stops the route: the gauge, and the route's auto-startup flag, which Camel's
     * health checks read. The policy turns the flag off so that the context does not start the route; off, the
     * route's consumer is left out of /actuator/health, so it is on while this instance leads (a server that
     * cannot be polled shows DOWN) and off while another does (a stopped route on a follower is no fault).
     */
    void leadershipChanged(String routeId, boolean leading) {
        metrics.sftpLeader(supplier(routeId), leading);
        if (!leading) {
            metrics.sftpNotPolledHere(supplier(routeId));
        }
        CamelContext context = camelContext;
        org.apache.camel.Route route = context == null ? null : context.getRoute(routeId);
        if (route != null) {
            route.setAutoStartup(leading);
        }
    }

    /** Whether this instance holds the lease of the route now (and so may poll its server). */
    public boolean leadsNow(String routeId) {
        return service.leadsNow(routeId);
    }

    private static String supplier(String routeId) {
        return routeId.startsWith("sftp-") ? routeId.substring(5) : routeId;
    }
}
