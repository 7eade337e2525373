package dev.ingestor.source.file;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.ingestor.metrics.IngestorMetrics;
import org.apache.camel.Consumer;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.spi.ExceptionHandler;
import org.apache.camel.spi.PollingConsumerPollStrategy;
import org.apache.camel.util.URISupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * How the SFTP routes report a poll that failed (server unreachable, login refused, directory missing):
 * one WARN line per failed poll, naming the supplier, the server and the cause, never the password; one
 * INFO line when the server answers again. With the route's back-off, a server that stays down is tried and
 * logged once per back-off step, not once per poll interval. The links a poll refused are reported when it
 * ends ({@link LinkRefusals}). A poll begins only on the instance that holds the route's lease
 * ({@link SftpLeadership}). A listing that stalls is ended by {@link SftpStallWatchdog} and reported here as a
 * failed poll. The route's filter is told when a poll begins and ends ({@link RegularRemoteFilesOnly}), so that it
 * judges which files have settled across polls and forgets the files that went away.
 */
@Component("sftpPollStrategy")
class SftpPollStrategy implements PollingConsumerPollStrategy, ExceptionHandler {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.sftp");

    /** Consecutive failed polls per route. */
    private final Map<String, Integer> failures = new ConcurrentHashMap<>();
    private final IngestorMetrics metrics;
    private final LinkRefusals refusals;
    private final SftpLeadership leadership;
    private final SftpStallWatchdog watchdog;

    public SftpPollStrategy(IngestorMetrics metrics, LinkRefusals refusals, SftpLeadership leadership,
            SftpStallWatchdog watchdog) {
        this.metrics = metrics;
        this.refusals = refusals;
        this.leadership = leadership;
        this.watchdog = watchdog;
    }

    /**
     * A poll begins (and logs in) only while this instance holds the route's lease: a lease that could not be
     * confirmed stops the polls at once, before the route policy has stopped the route. The poll's listing is
     * watched from here until its first file is taken or it ends ({@link SftpStallWatchdog}): a server that stops
     * answering mid-listing has its session disconnected after {@code ingestor.sftp.stall-timeout}, and the poll fails.
     */
    @Override
    public boolean begin(Consumer consumer, Endpoint endpoint) {
        if (!leadership.leadsNow(PollingRoute.id(consumer))) {
            LOG.debug("sftp {}: no poll, this instance does not hold the route's lease", where(consumer, endpoint));
            return false;
        }
        refusals.beginPoll();
        FilesPassedOn.pollBegins(endpoint);
        watchdog.listing(PollingRoute.id(consumer), supplier(consumer), consumer);
        return true;
    }

    @Override
    public void commit(Consumer consumer, Endpoint endpoint, int polledMessages) {
        watchdog.listed(PollingRoute.id(consumer));
        refusals.endPoll(PollingRoute.id(consumer), FilesPassedOn.pollEnds(endpoint, polledMessages));
        Integer failed = failures.remove(PollingRoute.id(consumer));
        recordUp(consumer, true);
        if (failed != null) {
            LOG.info("sftp {} answers again after {} failed poll(s)", where(consumer, endpoint), failed);
        }
    }

    @Override
    public boolean rollback(Consumer consumer, Endpoint endpoint, int retryCounter, Exception cause) {
        watchdog.listed(PollingRoute.id(consumer));
        refusals.abandonPoll();
        int failed = failures.merge(PollingRoute.id(consumer), 1, Integer::sum);
        recordUp(consumer, false);
        LOG.warn("sftp {} cannot be polled (failure {} in a row): {}; polling goes on with back-off",
                where(consumer, endpoint), failed, describe(cause));
        // no immediate retry: the next scheduled poll (after the back-off) tries again
        return false;
    }

    /**
     * A poll of {@code routeId} that an Error ended (memory run out while listing, say): Camel calls neither
     * {@link #commit} nor {@link #rollback} then, and its listing is no longer under way.
     */
    void endedByError(String routeId) {
        watchdog.listed(routeId);
    }

    /**
     * The poll's outcome as {@code ingestor_sftp_up}, while this instance holds the route's lease: a poll that ends
     * after the lease was lost (one that waited on a server cut off with the database) would bring back the gauge of
     * an instance that no longer polls ({@link IngestorMetrics#sftpNotPolledHere}).
     */
    private void recordUp(Consumer consumer, boolean up) {
        if (leadership.leadsNow(PollingRoute.id(consumer))) {
            metrics.sftpUp(supplier(consumer), up);
        }
    }

    /**
     * The consumer's exception handler. A failed poll (no exchange) was reported by {@link #rollback} already;
     * anything else (a file that could not be moved after intake, say) is logged here, without secrets.
     */
    @Override
    public void handleException(Throwable exception) {
        handleException(null, null, exception);
    }

    @Override
    public void handleException(String message, Throwable exception) {
        handleException(message, null, exception);
    }

    @Override
    public void handleException(String message, Exchange exchange, Throwable exception) {
        if (exchange == null) {
            LOG.debug("{}: {}", URISupport.sanitizeUri(String.valueOf(message)), describe(exception));
        } else {
            LOG.warn("sftp {} file={}: {}", URISupport.sanitizeUri(String.valueOf(message)),
                    exchange.getMessage().getHeader(Exchange.FILE_NAME), describe(exception));
        }
    }

    private static String supplier(Consumer consumer) {
        String route = PollingRoute.id(consumer);
        return route.startsWith("sftp-") ? route.substring(5) : route;
    }

    private static String where(Consumer consumer, Endpoint endpoint) {
        return "supplier=" + supplier(consumer) + " server=" + URISupport.sanitizeUri(endpoint.getEndpointBaseUri());
    }

    /** The causes' messages, outermost first, with anything that looks like a password masked. */
    static String describe(Throwable cause) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = cause; t != null && text.length() < 600; t = t.getCause()) {
            if (!text.isEmpty()) {
                text.append(" <- ");
            }
            text.append(t.getClass().getSimpleName());
            if (t.getMessage() != null) {
                text.append(": ").append(URISupport.sanitizeUri(t.getMessage()));
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return text.toString();
    }
}
