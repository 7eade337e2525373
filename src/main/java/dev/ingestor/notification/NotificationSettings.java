package dev.ingestor.notification;

import java.time.Duration;

import jakarta.validation.constraints.Positive;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.annotation.Validated;

/**
 * {@code ingestor.notifications.*}: the webhook told of failed jobs, dead letters, intake failures and a stalled
 * relay (routes/notifications.camel.yaml, docs/operations.md, Notifications). No URL: nothing is written,
 * nothing is sent.
 */
@Validated
@ConfigurationProperties(prefix = "ingestor.notifications")
public class NotificationSettings {

    /**
     * The installation-wide webhook, told of job.failed, dead_letter.created, intake.failed/intake.rejected and
     * relay.stalled; empty: none. A supplier's own webhook
     * ({@code ingestor.suppliers.<CODE>.notifications.webhook-url}) receives its events as well.
     */
    private String webhookUrl = "";
    /**
     * The key of the X-Ingestor-Signature HMAC-SHA256 for the installation-wide webhook; set it from the environment.
     * Empty: the webhook's requests carry no X-Ingestor-Signature (one WARN at start).
     */
    private String secret = "";
    /** How often the delivery looks for notifications due. */
    @DurationMin(millis = 10)
    private Duration pollInterval = Duration.ofSeconds(1);
    /**
     * Notifications taken per delivery round, each leased while it is sent; a round waits for no answer, each
     * webhook is a lane of its own.
     */
    @Positive
    private int batchSize = 10;
    /** Time allowed to open the connection to the webhook; at least 100ms (the HTTP client refuses 0). */
    @DurationMin(millis = 100)
    private Duration connectTimeout = Duration.ofSeconds(5);
    /**
     * Time allowed for the webhook's answer once the request is sent; at least 100ms (the HTTP client refuses 0, which
     * failed every attempt).
     */
    @DurationMin(millis = 100)
    private Duration readTimeout = Duration.ofSeconds(10);
    /** Attempts in all before a notification is given up. */
    @Positive
    private int maxAttempts = 8;
    /** Wait after the first failed attempt; doubled after each one, up to {@code maximum-delay}. */
    private Duration delay = Duration.ofSeconds(10);
    /** Longest wait between two attempts. */
    private Duration maximumDelay = Duration.ofMinutes(30);
    /**
     * The oldest unpublished Kafka outbox event older than this: the relay counts as stalled, one relay.stalled
     * notification until it recovers.
     */
    private Duration relayStalledAfter = Duration.ofMinutes(5);
    /** How often the relay is checked for a stall. */
    @DurationMin(millis = 10)
    private Duration relayCheckInterval = Duration.ofSeconds(30);
    /** Delivered or given-up notifications are deleted this long after (every {@code ingestor.retention.interval}). */
    private Duration keepSettled = Duration.ofDays(7);
    /**
     * Intake notices of one kind (type, supplier, source, reason) are sent at most once per this window: the
     * first at once, the facts after it counted into one notice (count, first and last time) sent when the window
     * has passed. 0: one notice per fact.
     */
    private Duration coalesceWindow = Duration.ofMinutes(1);

    public String getWebhookUrl() { return webhookUrl; }
    public void setWebhookUrl(String webhookUrl) { this.webhookUrl = webhookUrl; }
    public String getSecret() { return secret; }
    public void setSecret(String secret) { this.secret = secret; }
    public Duration getPollInterval() { return pollInterval; }
    public void setPollInterval(Duration pollInterval) { this.pollInterval = pollInterval; }
    public int getBatchSize() { return batchSize; }
    public void setBatchSize(int batchSize) { this.batchSize = batchSize; }
    public Duration getConnectTimeout() { return connectTimeout; }
    public void setConnectTimeout(Duration connectTimeout) { this.connectTimeout = connectTimeout; }
    public Duration getReadTimeout() { return readTimeout; }
    public void setReadTimeout(Duration readTimeout) { this.readTimeout = readTimeout; }
    public int getMaxAttempts() { return maxAttempts; }
    public void setMaxAttempts(int maxAttempts) { this.maxAttempts = maxAttempts; }
    public Duration getDelay() { return delay; }
    public void setDelay(Duration delay) { this.delay = delay; }
    public Duration getMaximumDelay() { return maximumDelay; }
    public void setMaximumDelay(Duration maximumDelay) { this.maximumDelay = maximumDelay; }
    public Duration getRelayStalledAfter() { return relayStalledAfter; }
    public void setRelayStalledAfter(Duration relayStalledAfter) { this.relayStalledAfter = relayStalledAfter; }
    public Duration getRelayCheckInterval() { return relayCheckInterval; }
    public void setRelayCheckInterval(Duration relayCheckInterval) { this.relayCheckInterval = relayCheckInterval; }
    public Duration getKeepSettled() { return keepSettled; }
    public void setKeepSettled(Duration keepSettled) { this.keepSettled = keepSettled; }
    public Duration getCoalesceWindow() { return coalesceWindow; }
    public void setCoalesceWindow(Duration coalesceWindow) { this.coalesceWindow = coalesceWindow; }
}
