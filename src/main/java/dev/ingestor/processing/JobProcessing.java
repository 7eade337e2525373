package dev.ingestor.processing;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.job.Attempts;
import dev.ingestor.job.ImportJob;
import dev.ingestor.job.JobClaims;
import dev.ingestor.job.JobState;
import dev.ingestor.job.LeaseLostException;
import dev.ingestor.validation.DeliveryAdvice;
import dev.ingestor.validation.DeliveryAdviceValidator;
import dev.ingestor.validation.JobRecords;
import dev.ingestor.validation.RecordReader;
import dev.ingestor.validation.Validated;
import dev.ingestor.metrics.IngestorMetrics;
import io.micrometer.core.instrument.Timer;
import org.apache.camel.Body;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The processing stage: applies the valid records of a validated job in batches. Each batch commits its item
 * effects, their outbox events and the job's checkpoint (records done, counts) in one transaction, guarded by
 * the lease, so a worker that dies mid-job leaves a consistent checkpoint and whoever takes the job over
 * resumes after it: no effect and no event twice.
 */
@Component
public class JobProcessing {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.processing");

    private final JobRecords jobRecords;
    private final ItemStore items;
    private final JobClaims claims;
    private final TransactionTemplate transactions;
    private final IngestorProperties properties;
    private final IngestorMetrics metrics;

    public JobProcessing(JobRecords jobRecords, ItemStore items, JobClaims claims,
                         PlatformTransactionManager transactionManager, IngestorProperties properties,
                         IngestorMetrics metrics) {
        this.metrics = metrics;
        this.jobRecords = jobRecords;
        this.items = items;
        this.claims = claims;
        this.transactions = new TransactionTemplate(transactionManager);
        this.properties = properties;
    }

    public void process(@Body ImportJob job, Exchange exchange) throws Exception {
        Attempts.count(exchange);
        Timer.Sample timing = Timer.start();
        int batchSize = Math.max(1, properties.getPipeline().getBatchSize());
        String topic = properties.getKafka().getItemsTopic();
        long checkpoint = job.recordsDone();
        long position = 0;
        List<DeliveryAdvice> batch = new ArrayList<>(batchSize);
        Set<String> batchIds = new HashSet<>();
        try (RecordReader records = jobRecords.open(job)) {
            while (records.hasNext()) {
                Validated record = DeliveryAdviceValidator.validate(records.next());
                if (++position <= checkpoint) {
                    continue; // committed by an earlier run of this job
                }
                if (record.isValid()) {
                    if (!batchIds.add(record.advice().sourceId())) {
                        // one statement may touch an item once: the second sighting starts the next batch
                        commit(job, topic, batch, position - 1);
                        batchIds.clear();
                        batchIds.add(record.advice().sourceId());
                    }
                    batch.add(record.advice());
                }
                if (batch.size() >= batchSize) {
                    commit(job, topic, batch, position);
                    batchIds.clear();
                }
            }
        }
        commit(job, topic, batch, position);
        // validation set the quarantine count before this job could be claimed for processing
        JobState end = job.counts().quarantined() > 0 ? JobState.COMPLETED_WITH_ERRORS : JobState.COMPLETED;
        if (!claims.completed(job.id(), end)) {
            throw new LeaseLostException(job.id());
        }
        timing.stop(metrics.stage("processing", job.supplier()));
        LOG.info("processed supplier={} job={} key={} state={} records={}", job.supplier(), job.id(), job.key(), end, position);
    }

    /** Effects, events and the checkpoint {@code position} in one transaction; empties the batch. */
    private void commit(ImportJob job, String topic, List<DeliveryAdvice> batch, long position) {
        AppliedBatch applied = transactions.execute(status -> {
            AppliedBatch result = items.apply(job.supplier(), job.id(), topic, batch);
            // a lost lease throws here and rolls the batch back: the new owner applies it itself
            claims.checkpoint(job.id(), position, result.accepted(), result.updated(),
                    batch.size() - result.accepted() - result.updated());
            return result;
        });
        metrics.records(job.supplier(), applied.accepted(), applied.updated(),
                batch.size() - applied.accepted() - applied.updated(), 0);
        batch.clear();
    }
}
