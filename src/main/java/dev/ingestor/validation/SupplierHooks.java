package dev.ingestor.validation;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.Route;
import org.apache.camel.spi.Resource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Finds a supplier's route hook ({@code direct:map-<SUPPLIER>}) and puts a job's records through it. Looked up per
 * job (a cheap route lookup) so a route added or reloaded while the app runs is seen by the next job. A file larger
 * than a processing batch is read by both stages, so a hook runs for each of its records once per stage: it must be
 * deterministic (a small file's records are read once and handed on, {@link ReadRecords}).
 * <p>
 * A reload takes a route away before it adds it again, and an edit that does not load leaves it away. So the file
 * each hook route was loaded from is remembered: a hook missing while that file is still there throws {@link
 * HookNotRunningException}, which the stage tries again (and, past its redeliveries, fails the job with a dead
 * letter), rather than read the records as if the supplier had no hook. A hook whose file was deleted is gone on
 * purpose, and so is one away for longer than {@link #AWAY_AT_MOST} whose file no longer names its endpoint (an
 * edit that took the route out, which a reload loads without it): its jobs then go on without it. A file that still
 * names it and did not load (Camel has taken its routes away, and an edit with a mistake in it leaves them away) is
 * waited for however long that lasts. Hooks are remembered from the first lookup of the run on, every hook route at
 * each lookup, so a reload before the first job of the run is not told from a hook never there.
 */
@Component
class SupplierHooks {

    /** How Camel writes a hook route's endpoint uri ({@code direct:map-X} normalized). */
    private static final String HOOK_URI_PREFIX = "direct://map-";

    private final CamelContext camelContext;
    private final ProducerTemplate producer;
    /** How long a hook whose file no longer names it is waited for before its supplier's jobs go on without it. */
    static final Duration AWAY_AT_MOST = Duration.ofMinutes(1);
    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.validation");

    /** The file each supplier's hook route was loaded from, from the first lookup of the run on. */
    private final Map<String, Resource> loadedFrom = new ConcurrentHashMap<>();
    /** Since when each remembered hook has been found away (System.nanoTime). */
    private final Map<String, Long> awaySince = new ConcurrentHashMap<>();
    private final long awayAtMostNanos;

    @org.springframework.beans.factory.annotation.Autowired
    public SupplierHooks(CamelContext camelContext) {
        this(camelContext, AWAY_AT_MOST);
    }

    SupplierHooks(CamelContext camelContext, Duration awayAtMost) {
        this.awayAtMostNanos = awayAtMost.toNanos();
        this.camelContext = camelContext;
        // One template for the bean's life: a template holds a producer cache and must not be made per call.
        this.producer = camelContext.createProducerTemplate();
    }

    /** The endpoint a supplier's hook consumes. */
    public static String endpointOf(String supplier) {
        return "direct:map-" + supplier;
    }

    /** {@code reader} as it is when the supplier has no hook route, else a reader whose records pass through it. */
    public RecordReader wrap(String supplier, UUID jobId, RecordReader reader) {
        return hook(supplier, jobId).map(hook -> (RecordReader) new TransformedRecordReader(reader, hook::apply))
                .orElse(reader);
    }

    /**
     * The supplier's hook, when a running route consumes its endpoint; {@code jobId} null for a preview. Throws
     * {@link HookNotRunningException} when the hook route is away while its file is there.
     */
    Optional<RecordHook> hook(String supplier, UUID jobId) {
        String uri = endpointOf(supplier);
        // the routes' endpoint uris are normalized already (direct://map-<SUPPLIER>), so a string comparison says
        // which route consumes it. (Matching each route's uri as a pattern normalized every route's uri, query and
        // all, for every job and stage: 1.7 ms of CPU per job, more than half of what the stages cost for a file of
        // one record.)
        boolean hooked = false;
        for (Route route : camelContext.getRoutes()) {
            Endpoint from = route.getEndpoint();
            if (from == null || !from.getEndpointUri().startsWith(HOOK_URI_PREFIX)) {
                continue;
            }
            // a direct endpoint is its name: direct:map-ACME?timeout=5000 consumes what is sent to direct:map-ACME
            String hookOf = from.getEndpointUri().substring(HOOK_URI_PREFIX.length()).split("\\?", 2)[0];
            if (route.getSourceResource() != null) {
                loadedFrom.put(hookOf, route.getSourceResource());
            }
            hooked |= hookOf.equals(supplier);
        }
        if (hooked) {
            awaySince.remove(supplier);
            return Optional.of(new RecordHook(producer, uri, supplier, jobId));
        }
        Resource file = loadedFrom.get(supplier);
        if (file != null && file.exists()) {
            long now = System.nanoTime();
            if (now - awaySince.computeIfAbsent(supplier, s -> now) < awayAtMostNanos || namesHook(file, supplier)) {
                throw new HookNotRunningException(supplier, uri, file.getLocation());
            }
            LOG.warn("the hook route of supplier {} ({}) has been away for {} and its file {} no longer names it: its"
                    + " jobs go on without it", supplier, uri, Duration.ofNanos(awayAtMostNanos), file.getLocation());
        }
        loadedFrom.remove(supplier);
        awaySince.remove(supplier);
        return Optional.empty();
    }

    private static final java.util.regex.Pattern YAML_COMMENT = java.util.regex.Pattern.compile("(?m)(^|\\s)#.*$");

    /** More than any route file holds; a file longer than this is read this far. */
    private static final int MOST_READ = 1024 * 1024;

    /**
     * Whether the route file still names the supplier's hook endpoint, {@code map-<SUPPLIER>} as a word of its own
     * (as {@code direct:map-X}, {@code direct://map-X} or a {@code name: map-X} parameter). A file that cannot be read
     * is taken to name it: waiting is the safe side.
     */
    static boolean namesHook(Resource file, String supplier) {
        try (java.io.InputStream in = file.getInputStream()) {
            String text = new String(in.readNBytes(MOST_READ), java.nio.charset.StandardCharsets.UTF_8);
            // a YAML comment (from a '#' that starts a line or follows white space) names nothing: a hook commented out
            // of its file, or the file's own header that quotes its endpoint, is no hook
            String uncommented = YAML_COMMENT.matcher(text).replaceAll("");
            return java.util.regex.Pattern.compile("(?<![\\w-])map-" + java.util.regex.Pattern.quote(supplier)
                    + "(?![\\w-])").matcher(uncommented).find();
        } catch (java.io.IOException | RuntimeException e) {
            return true;
        }
    }
}
