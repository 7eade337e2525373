package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ingestor.support.TestPostgres;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A route's lease when what is told of leadership fails, on a real PostgreSQL with Camel's cluster classes: the
 * lease is given back, so another instance may lead the route, and the renewals go on.
 */
class LeaseClusterViewTest {

    /** Long beside the renewal: an instance that held on to a lease it did not take up would keep it this long. */
    private static final Duration LEASE = Duration.ofSeconds(6);
    private static final Duration RENEWAL = Duration.ofMillis(200);
    private static JdbcTemplate jdbc;

    @BeforeAll
    static void setUp() {
        jdbc = TestPostgres.migrated("route_leases");
    }

    @BeforeEach
    void empty() {
        jdbc.execute("TRUNCATE route_leader");
    }

    /** An instance's cluster service in a Camel context of its own, telling {@code told} what it leads. */
    private static LeaseClusterService instance(CamelContext camel, String owner, List<Boolean> told,
            AtomicInteger failuresOnGain) throws Exception {
        LeaseClusterService service = new LeaseClusterService(new RouteLeases(jdbc), owner, LEASE, RENEWAL,
                (route, leading) -> {
                    told.add(leading);
                    if (leading && failuresOnGain.getAndDecrement() > 0) {
                        throw new IllegalStateException("on purpose: the route cannot start");
                    }
                });
        camel.addService(service);
        camel.start();
        service.getView("supplier-acme");
        return service;
    }

    @Test
    void aListenerThatFailedOnceOnLeadershipGainedIsToldAgainAtTheNextRenewal() throws Exception {
        List<Boolean> told = new CopyOnWriteArrayList<>();
        try (CamelContext camel = new DefaultCamelContext()) {
            LeaseClusterService one = instance(camel, "one", told, new AtomicInteger(1));
            one.arm("supplier-acme");
            await().atMost(Duration.ofSeconds(5)).until(() -> one.leadsNow("supplier-acme") && told.size() >= 3);
            assertThat(told).startsWith(true, false, true);
        }
    }

    @Test
    void anInstanceWhoseListenerFailsOnLeadershipGainedLetsAnotherLead() throws Exception {
        List<Boolean> toldOne = new CopyOnWriteArrayList<>();
        List<Boolean> toldTwo = new CopyOnWriteArrayList<>();
        try (CamelContext first = new DefaultCamelContext(); CamelContext second = new DefaultCamelContext()) {
            LeaseClusterService one = instance(first, "one", toldOne, new AtomicInteger(Integer.MAX_VALUE));
            one.arm("supplier-acme");
            await().atMost(Duration.ofSeconds(5)).until(() -> toldOne.contains(true));
            LeaseClusterService two = instance(second, "two", toldTwo, new AtomicInteger(0));
            two.arm("supplier-acme");
            // within a few renewals: one gives the lease back at once, not when it would have run out
            await().atMost(LEASE.dividedBy(2)).until(() -> two.leadsNow("supplier-acme"));
            assertThat(jdbc.queryForObject("SELECT owner FROM route_leader WHERE route_id = 'supplier-acme'",
                    String.class)).isEqualTo("two");
            assertThat(one.leadsNow("supplier-acme")).isFalse();
        }
    }
}
