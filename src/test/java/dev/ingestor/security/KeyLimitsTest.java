package dev.ingestor.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import dev.ingestor.config.HttpLimits;
import org.junit.jupiter.api.Test;

/** Per-key limits: concurrent requests and a token bucket, each refusal naming its property. */
class KeyLimitsTest {

    private static KeyLimits limits(int concurrent, int perSecond, int burst) {
        HttpLimits limits = new HttpLimits();
        limits.setMaxConcurrentPerKey(concurrent);
        limits.setRequestsPerSecond(perSecond);
        limits.setBurst(burst);
        return new KeyLimits(limits, List.of("a", "b"));
    }

    @Test
    void moreConcurrentRequestsThanTheLimitAreRefusedUntilOneEnds() {
        KeyLimits limits = limits(2, 1000, 1000);
        KeyLimits.Admission first = limits.admit("a");
        KeyLimits.Admission second = limits.admit("a");
        KeyLimits.Admission third = limits.admit("a");
        assertThat(first.permit()).isPresent();
        assertThat(second.permit()).isPresent();
        assertThat(third.permit()).isEmpty();
        assertThat(third.refusal().status()).isEqualTo(429);
        assertThat(third.refusal().detail()).contains("ingestor.http.limits.max-concurrent-per-key").contains("2");
        assertThat(third.retryAfterSeconds()).isEqualTo(1);
        assertThat(limits.admit("b").permit()).as("another key has its own limit").isPresent();
        first.permit().get().release();
        first.permit().get().release();
        assertThat(limits.admit("a").permit()).isPresent();
        assertThat(limits.admit("a").permit()).as("a second release of one permit frees nothing more").isEmpty();
    }

    @Test
    void aPermitHeldAlsoByTheRouteIsFreedOnlyWhenBothLetGo() {
        KeyLimits limits = limits(1, 1000, 1000);
        KeyLimits.Permit permit = limits.admit("a").permit().orElseThrow();
        permit.hold();
        // the request was answered (an async timeout), its route still reads the body
        permit.release();
        assertThat(limits.admit("a").permit()).as("still taken while the route runs").isEmpty();
        permit.release();
        assertThat(limits.admit("a").permit()).as("free once the route ended").isPresent();
    }

    @Test
    void aKeyOverItsRateIsRefusedWithTheTimeToWait() {
        KeyLimits limits = limits(100, 1, 3);
        for (int i = 0; i < 3; i++) {
            limits.admit("a").permit().orElseThrow().release();
        }
        KeyLimits.Admission refused = limits.admit("a");
        assertThat(refused.permit()).isEmpty();
        assertThat(refused.refusal().detail()).contains("ingestor.http.limits.requests-per-second")
                .contains("ingestor.http.limits.burst");
        assertThat(refused.retryAfterSeconds()).isEqualTo(1);
        assertThat(limits.admit("b").permit()).isPresent();
        // a refusal for the rate holds no place among the concurrent requests
        KeyLimits concurrentOne = limits(1, 1, 1);
        concurrentOne.admit("a").permit().orElseThrow().release();
        assertThat(concurrentOne.admit("a").refusal().detail()).contains("requests-per-second");
    }

    @Test
    void limitsMustBePositive() {
        assertThatThrownBy(() -> limits(0, 1, 1)).hasMessageContaining("ingestor.http.limits.max-concurrent-per-key");
    }
}
