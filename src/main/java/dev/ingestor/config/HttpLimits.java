package dev.ingestor.config;

import java.time.Duration;

import jakarta.validation.constraints.Positive;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.annotation.Validated;

/**
 * {@code ingestor.http.limits.*}: what one API key, and one client address failing to authenticate, may do. Read
 * by the front door (package security) and by the start-up check that the connection pool is larger than one
 * key's concurrency ({@link PoolAboveKeyConcurrency}), so it sits here.
 */
@Validated
@ConfigurationProperties(prefix = "ingestor.http.limits")
public class HttpLimits {

    /**
     * Requests of one key being served at once; more are answered 429. Keep spring.task.execution.pool.max-size
     * at least twice this, and spring.datasource.hikari.maximum-pool-size above it (checked at start).
     */
    @Positive
    private int maxConcurrentPerKey = 32;
    /** Sustained requests per second of one key (token bucket refill); over it 429 with Retry-After. */
    @Positive
    private int requestsPerSecond = 5000;
    /** Requests one key may send at once above the sustained rate (token bucket capacity). */
    @Positive
    private int burst = 10000;
    /**
     * Failed authentications from one client address (an IPv6 client: its /64) per window before it is answered
     * 429 until the window ends.
     */
    @Positive
    private int failedAuthPerWindow = 20;
    /** How long failures from one address are counted, and how long it is refused once over the limit. */
    private Duration failedAuthWindow = Duration.ofMinutes(1);

    public int getMaxConcurrentPerKey() { return maxConcurrentPerKey; }
    public void setMaxConcurrentPerKey(int maxConcurrentPerKey) { this.maxConcurrentPerKey = maxConcurrentPerKey; }
    public int getRequestsPerSecond() { return requestsPerSecond; }
    public void setRequestsPerSecond(int requestsPerSecond) { this.requestsPerSecond = requestsPerSecond; }
    public int getBurst() { return burst; }
    public void setBurst(int burst) { this.burst = burst; }
    public int getFailedAuthPerWindow() { return failedAuthPerWindow; }
    public void setFailedAuthPerWindow(int failedAuthPerWindow) { this.failedAuthPerWindow = failedAuthPerWindow; }
    public Duration getFailedAuthWindow() { return failedAuthWindow; }
    public void setFailedAuthWindow(Duration failedAuthWindow) { this.failedAuthWindow = failedAuthWindow; }
}
