package dev.ingestor.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import ch.qos.logback.classic.Level;
import dev.ingestor.support.CapturedLogs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Failed authentications per address: refused after the limit until the window ends, one WARN per window, bounded. */
class FailedAuthThrottleTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private CapturedLogs logs;

    @BeforeEach
    void capture() {
        logs = CapturedLogs.of("dev.ingestor.http");
    }

    @AfterEach
    void release() {
        logs.close();
    }

    private long warnings(String address) {
        return logs.events().stream()
                .filter(e -> e.getLevel() == Level.WARN && e.getFormattedMessage().contains(address)).count();
    }

    @Test
    void afterTheLimitAnAddressIsRefusedUntilTheWindowEndsWithOneWarning() {
        FailedAuthThrottle throttle = new FailedAuthThrottle(20, Duration.ofMinutes(1), now::get, 100);
        for (int i = 0; i < 19; i++) {
            throttle.failed("10.0.0.1", "unknown API key", "POST", "/api/v1/suppliers/ACME/files");
            assertThat(throttle.refusedForSeconds("10.0.0.1")).isZero();
        }
        throttle.failed("10.0.0.1", "unknown API key", "POST", "/api/v1/suppliers/ACME/files");
        assertThat(throttle.refusedForSeconds("10.0.0.1")).isEqualTo(60);
        assertThat(throttle.refusedForSeconds("10.0.0.2")).isZero();
        now.addAndGet(Duration.ofSeconds(45).toNanos());
        assertThat(throttle.refusedForSeconds("10.0.0.1")).isEqualTo(15);
        for (int i = 0; i < 100; i++) {
            throttle.failed("10.0.0.1", "no API key", "GET", "/x");
        }
        assertThat(warnings("10.0.0.1")).isEqualTo(1);
        assertThat(logs.events().get(0).getFormattedMessage()).contains("ingestor.http.limits.failed-auth-per-window");

        now.addAndGet(Duration.ofSeconds(15).toNanos());
        assertThat(throttle.refusedForSeconds("10.0.0.1")).isZero();
        throttle.failed("10.0.0.1", "unknown API key", "GET", "/x");
        assertThat(warnings("10.0.0.1")).as("a new window, a new warning").isEqualTo(2);
        assertThat(throttle.refusedForSeconds("10.0.0.1")).isZero();
    }

    @Test
    void theAddressesKeptAreBounded() {
        FailedAuthThrottle throttle = new FailedAuthThrottle(1, Duration.ofMinutes(1), now::get, 100);
        for (int i = 0; i < 1000; i++) {
            throttle.failed("2001:db8:" + Integer.toHexString(i) + "::1", "no API key", "GET", "/");
            assertThat(throttle.tracked()).as("addresses kept after %d failures", i + 1).isLessThanOrEqualTo(100);
        }
        assertThat(throttle.tracked()).isEqualTo(100);
        // the latest address is kept: it is refused at once
        assertThat(throttle.refusedForSeconds("2001:db8:" + Integer.toHexString(999) + "::1")).isPositive();
        now.addAndGet(Duration.ofMinutes(1).toNanos());
        assertThat(throttle.refusedForSeconds("2001:db8:" + Integer.toHexString(999) + "::1")).isZero();
        assertThat(throttle.tracked()).as("every window ended, so no address is kept").isZero();
    }

    @Test
    void anIpv6ClientIsCountedByItsSlash64() {
        FailedAuthThrottle throttle = new FailedAuthThrottle(3, Duration.ofMinutes(1), now::get, 100);
        // one host rotating through the /64 it was given
        throttle.failed("2001:db8:1:2::1", "unknown API key", "GET", "/");
        throttle.failed("2001:db8:1:2:ffff:ffff:ffff:fffe", "unknown API key", "GET", "/");
        throttle.failed("2001:0db8:0001:0002:0:0:0:7", "unknown API key", "GET", "/");
        assertThat(throttle.refusedForSeconds("2001:db8:1:2:abcd::99")).isEqualTo(60);
        assertThat(throttle.tracked()).isEqualTo(1);
        assertThat(warnings("2001:db8:1:2::/64")).isEqualTo(1);
        // the next /64 is another client
        assertThat(throttle.refusedForSeconds("2001:db8:1:3::1")).isZero();
    }

    @Test
    void aClientIsItsIpv4AddressOrItsIpv6Slash64() {
        assertThat(FailedAuthThrottle.clientOf("192.0.2.7")).isEqualTo("192.0.2.7");
        assertThat(FailedAuthThrottle.clientOf("::ffff:192.0.2.7")).isEqualTo("192.0.2.7");
        assertThat(FailedAuthThrottle.clientOf("2001:db8:a:b:c:d:e:f")).isEqualTo("2001:db8:a:b::/64");
        assertThat(FailedAuthThrottle.clientOf("[2001:db8::1]")).isEqualTo("2001:db8:0:0::/64");
        // what a forwarding strategy may pass on from a header: kept short, never looked up
        assertThat(FailedAuthThrottle.clientOf("attacker.example")).isEqualTo("attacker.example");
        assertThat(FailedAuthThrottle.clientOf("x".repeat(10_000))).hasSize(64);
    }

    @Test
    void pathsInTheWarningAreEscaped() {
        FailedAuthThrottle throttle = new FailedAuthThrottle(5, Duration.ofMinutes(1), now::get, 100);
        throttle.failed("10.0.0.3", "no API key", "GET", "/api/v1/jobs/\n2026-01-01 INFO forged line");
        assertThat(logs.events().get(0).getFormattedMessage()).doesNotContain("\n");
    }
}
