package dev.ingestor.job;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ingestor.config.IngestorProperties;
import dev.ingestor.ops.IngestorMetrics;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The dead-letter channel's end: a failure that outlasted the redelivery policy is recorded (job, stage,
 * exception, message, attempts, time), the job is marked FAILED with the message, and an event for
 * {@code ingestor.dead-letters} goes into the outbox, all in one transaction.
 */
@Component
public class DeadLetters {

    public static final String STAGE = "IngestorStage";
    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.deadletter");

    private final JdbcTemplate jdbc;
    private final JobClaims claims;
    private final TransactionTemplate transactions;
    private final ObjectMapper json;
    private final String topic;
    private final IngestorMetrics metrics;

    public DeadLetters(JdbcTemplate jdbc, JobClaims claims, PlatformTransactionManager transactionManager,
                       ObjectMapper json, IngestorProperties properties, IngestorMetrics metrics) {
        this.metrics = metrics;
        this.jdbc = jdbc;
        this.claims = claims;
        this.transactions = new TransactionTemplate(transactionManager);
        this.json = json;
        this.topic = properties.getKafka().getDeadLettersTopic();
    }

    public void record(Exchange exchange) {
        ImportJob job = exchange.getMessage().getBody(ImportJob.class);
        Throwable cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        while (cause instanceof org.apache.camel.CamelExecutionException && cause.getCause() != null) {
            cause = cause.getCause(); // Camel's wrapper says nothing; what it wraps does
        }
        String stage = exchange.getProperty(STAGE, "unknown", String.class);
        int attempts = Math.max(1, Attempts.of(exchange));
        String exceptionType = cause == null ? "unknown" : cause.getClass().getName();
        String message = cause == null ? "no exception recorded" : String.valueOf(cause.getMessage());
        Throwable logged = cause;
        UUID jobId = job == null ? null : job.id();
        boolean recorded = Boolean.TRUE.equals(transactions.execute(status -> {
            if (jobId != null && !claims.finish(jobId, JobState.FAILED, stage + " failed: " + message)) {
                return false; // another worker owns the job now; its outcome is its own
            }
            Long id = jdbc.queryForObject("INSERT INTO dead_letter (job_id, stage, exception, message, attempts)"
                    + " VALUES (?, ?, ?, ?, ?) RETURNING id", Long.class, jobId, stage, exceptionType, message, attempts);
            Map<String, Object> event = new LinkedHashMap<>();
            event.put("dead_letter_id", id);
            event.put("job_id", jobId == null ? null : jobId.toString());
            event.put("supplier", job == null ? null : job.supplier());
            event.put("key", job == null ? null : job.key().toString());
            event.put("stage", stage);
            event.put("exception", exceptionType);
            event.put("message", message);
            event.put("attempts", attempts);
            event.put("failed_at", Instant.now().toString());
            jdbc.update("INSERT INTO outbox (event_id, topic, event_key, payload) VALUES (?, ?, ?, ?)",
                    UUID.nameUUIDFromBytes(("dead-letter:" + id).getBytes()), topic,
                    job == null ? "unknown" : job.supplier() + ":" + jobId, write(event));
            return true;
        }));
        if (recorded) {
            metrics.deadLetter(stage);
            LOG.error("dead letter supplier={} job={} key={} stage={} attempts={} exception={} message=\"{}\"",
                    job == null ? null : job.supplier(), jobId, job == null ? null : job.key(), stage, attempts, exceptionType, message, logged);
        }
    }

    private String write(Map<String, Object> event) {
        try {
            return json.writeValueAsString(event);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
