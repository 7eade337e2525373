package dev.ingestor.wakeup;

import java.time.Duration;

import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.annotation.Validated;

/**
 * {@code ingestor.wakeups.*}: the listener that wakes a stage when work for it is committed
 * ({@link NoticeListener}). Without it the stages find work by their polls alone.
 */
@Validated
@ConfigurationProperties(prefix = "ingestor.wakeups")
public class WakeupSettings {

    /**
     * false: no listener; the stages find new work by their polls alone (ingestor.pipeline.poll-interval,
     * ingestor.outbox.poll-interval), which then set the latency of a light load. The listener needs a session of
     * its own on PostgreSQL: switch it off when no such connection can be had (PgBouncer in transaction mode
     * without listener-url).
     */
    private boolean enabled = true;
    /**
     * JDBC URL of the listener's own connection (LISTEN needs a session; the listener keeps one open, outside the
     * pool). Empty: the datasource's URL. Behind PgBouncer in transaction mode, the address of PostgreSQL itself
     * (or of a session-mode pool). The datasource's user and password are used.
     */
    private String listenerUrl = "";
    /**
     * The listener's first wait before it connects again after losing its connection; doubled up to
     * reconnect-max-delay, and back to this only after a connection that listened for reconnect-max-delay.
     */
    @DurationMin(millis = 10)
    private Duration reconnectDelay = Duration.ofSeconds(1);
    /** The longest wait between the listener's attempts to connect again. */
    @DurationMin(millis = 10)
    private Duration reconnectMaxDelay = Duration.ofSeconds(30);
    /**
     * How long the listener waits for a notification before it checks its connection with a query, so that a
     * connection the network lost without a word is noticed and replaced.
     */
    @DurationMin(millis = 10)
    private Duration aliveCheckInterval = Duration.ofSeconds(30);

    public boolean isEnabled() { return enabled; }
    public void setEnabled(boolean enabled) { this.enabled = enabled; }
    public String getListenerUrl() { return listenerUrl; }
    public void setListenerUrl(String listenerUrl) { this.listenerUrl = listenerUrl; }
    public Duration getReconnectDelay() { return reconnectDelay; }
    public void setReconnectDelay(Duration reconnectDelay) { this.reconnectDelay = reconnectDelay; }
    public Duration getReconnectMaxDelay() { return reconnectMaxDelay; }
    public void setReconnectMaxDelay(Duration reconnectMaxDelay) { this.reconnectMaxDelay = reconnectMaxDelay; }
    public Duration getAliveCheckInterval() { return aliveCheckInterval; }
    public void setAliveCheckInterval(Duration aliveCheckInterval) { this.aliveCheckInterval = aliveCheckInterval; }
}
