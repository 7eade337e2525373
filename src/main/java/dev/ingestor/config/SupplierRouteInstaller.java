package dev.ingestor.config;

import java.util.Map;

import org.apache.camel.CamelContext;
import org.apache.camel.builder.TemplatedRouteBuilder;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Turns supplier configuration into routes: one route per supplier from the {@code file-drop} template in
 * {@code routes/source-file-drop.camel.yaml}. Adding a supplier is configuration only.
 */
@Component
public class SupplierRouteInstaller {

    private static final Logger LOG = LoggerFactory.getLogger(SupplierRouteInstaller.class);
    static final String FILE_DROP_TEMPLATE = "file-drop";

    private final IngestorProperties properties;
    private final CamelContext camelContext;

    public SupplierRouteInstaller(IngestorProperties properties, CamelContext camelContext) {
        this.properties = properties;
        this.camelContext = camelContext;
    }

    /**
     * Runs once the YAML routes (and so the template) are loaded. A failure here fails the start of the
     * application: an instance that silently ignores a supplier is worse than one that does not start.
     */
    @EventListener(ApplicationReadyEvent.class)
    public void install() throws Exception {
        for (Map.Entry<String, SupplierProperties> supplier : properties.getSuppliers().entrySet()) {
            SupplierProperties.FileDrop drop = supplier.getValue().getFileDrop();
            if (drop.isEnabled()) {
                addFileDrop(camelContext, supplier.getKey(), drop);
            }
        }
    }

    private void addFileDrop(CamelContext camelContext, String code, SupplierProperties.FileDrop drop) throws Exception {
        String directory = properties.getInboxDir().resolve(code).toAbsolutePath().toString();
        TemplatedRouteBuilder route = TemplatedRouteBuilder.builder(camelContext, FILE_DROP_TEMPLATE)
                .routeId("file-drop-" + code)
                .parameter("supplier", code)
                .parameter("directory", directory)
                .parameter("minAge", drop.getMinAge().toMillis())
                .parameter("pollDelay", drop.getPollInterval().toMillis())
                .parameter("concurrency", Math.max(1, drop.getConcurrency()));
        if (drop.getReadLock() == SupplierProperties.ReadLock.DONE_FILE) {
            route.parameter("readLock", "idempotent")
                 .parameter("doneFileName", "${file:name}" + drop.getDoneFileSuffix());
        } else {
            route.parameter("readLock", "idempotent-changed");
        }
        route.add();
        LOG.info("file drop for supplier={} watches {} (read lock {}, {} in parallel)", code, directory,
                drop.getReadLock().name().toLowerCase().replace('_', '-'), drop.getConcurrency());
    }
}
