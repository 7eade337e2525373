package dev.ingestor.validation;

import java.util.Optional;
import java.util.UUID;

import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.Route;
import org.springframework.stereotype.Component;

/**
 * Finds a supplier's route hook ({@code direct:map-<SUPPLIER>}) and puts a job's records through it. Looked up per
 * job (a cheap route lookup) so a route added or reloaded while the app runs is seen by the next job. A file larger
 * than a processing batch is read by both stages, so a hook runs for each of its records once per stage: it must be
 * deterministic (a small file's records are read once and handed on, {@link ReadRecords}).
 */
@Component
class SupplierHooks {

    private final CamelContext camelContext;
    private final ProducerTemplate producer;

    public SupplierHooks(CamelContext camelContext) {
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

    /** The supplier's hook, when a running route consumes its endpoint; {@code jobId} null for a preview. */
    Optional<RecordHook> hook(String supplier, UUID jobId) {
        String uri = endpointOf(supplier);
        // the registry normalizes this short uri once and answers the endpoint if anything made it; the routes'
        // endpoint uris are normalized already, so a string comparison says which route consumes it. (Matching
        // each route's uri as a pattern normalized every route's uri, query and all, for every job and stage:
        // 1.7 ms of CPU per job, more than half of what the stages cost for a file of one record.)
        Endpoint endpoint = camelContext.hasEndpoint(uri);
        boolean hooked = endpoint != null && camelContext.getRoutes().stream().map(Route::getEndpoint)
                .anyMatch(e -> e == endpoint || e != null && e.getEndpointUri().equals(endpoint.getEndpointUri()));
        return hooked ? Optional.of(new RecordHook(producer, uri, supplier, jobId)) : Optional.empty();
    }
}
