package dev.ingestor.job;

import org.apache.camel.CamelContext;
import org.apache.camel.builder.TemplatedRouteBuilder;
import org.apache.camel.spring.boot.CamelContextConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Makes {@code ingestor.pipeline.workers} workers per stage from the {@code stage-worker} template in
 * routes/stage-worker.camel.yaml, so independent jobs are validated and processed side by side.
 */
@Component
public class StageWorkerInstaller implements CamelContextConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(StageWorkerInstaller.class);

    private final PipelineSettings pipeline;
    private final CamelContext camelContext;

    public StageWorkerInstaller(PipelineSettings pipeline, CamelContext camelContext) {
        this.pipeline = pipeline;
        this.camelContext = camelContext;
    }

    /**
     * Adds the workers once the YAML routes (and so the template) are loaded and before the context starts, so
     * that they start with it: a route added to a running context has no status for a moment, and a health probe
     * in that moment fails in Camel's route health check.
     */
    @Override
    public void beforeApplicationStart(CamelContext camelContext) {
        try {
            install();
        } catch (Exception e) {
            throw new IllegalStateException("cannot add the stage workers: " + e.getMessage(), e);
        }
    }

    @Override
    public void afterApplicationStart(CamelContext camelContext) {
        // the workers start with the context
    }

    public void install() throws Exception {
        if (!pipeline.isEnabled()) {
            LOG.info("validation and processing are off on this instance (ingestor.pipeline.enabled=false)");
            return;
        }
        int workers = Math.max(1, pipeline.getWorkers());
        for (int n = 1; n <= workers; n++) {
            add("validation", "claimJobsForValidation", "direct:validate-jobs", n);
            add("processing", "claimForProcessing", "direct:process-job", n);
        }
        LOG.info("{} validation and {} processing workers added", workers, workers);
    }

    private void add(String stage, String claim, String target, int worker) throws Exception {
        TemplatedRouteBuilder.builder(camelContext, "stage-worker")
                .routeId(stage + "-" + worker)
                .parameter("stage", stage)
                .parameter("claim", claim)
                .parameter("target", target)
                .parameter("worker", worker)
                .add();
    }
}
