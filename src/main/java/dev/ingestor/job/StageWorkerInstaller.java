package dev.ingestor.job;

import dev.ingestor.config.RoutesFromTemplates;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.TemplatedRouteBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Makes {@code ingestor.pipeline.workers} workers per stage from the {@code stage-worker} template in
 * routes/stage-worker.camel.yaml, so independent jobs are validated and processed side by side.
 */
@Component
public class StageWorkerInstaller implements RoutesFromTemplates {

    private static final Logger LOG = LoggerFactory.getLogger(StageWorkerInstaller.class);

    private final PipelineSettings pipeline;
    private final CamelContext camelContext;

    public StageWorkerInstaller(PipelineSettings pipeline, CamelContext camelContext) {
        this.pipeline = pipeline;
        this.camelContext = camelContext;
    }

    @Override
    public String routes() {
        return "the stage workers";
    }

    @Override
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
