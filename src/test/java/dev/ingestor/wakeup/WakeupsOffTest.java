package dev.ingestor.wakeup;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;

import dev.ingestor.support.LiveEvents;
import dev.ingestor.support.SlowTest;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** With the listener switched off (ingestor.wakeups.enabled=false), the stages' polls alone still serve. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
// slow tier: a context of its own
@SlowTest
class WakeupsOffTest {

    static final String DATABASE = "ingestor_wakeups_off";

    @Autowired
    NoticeListener listener;
    @Autowired
    JdbcTemplate jdbc;
    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void listenerOff(DynamicPropertyRegistry registry) {
        WakeupTest.properties(registry, DATABASE);
        registry.add("ingestor.wakeups.enabled", () -> "false");
        registry.add("ingestor.pipeline.poll-interval", () -> "2s");
    }

    @Test
    void thePollsAloneStillBringAPushedFileToItsEvent() throws Exception {
        try (LiveEvents events = new LiveEvents("ingestor.items")) {
            UUID job = WakeupTest.pushOneRecord(port, "off");

            // two polls of each stage at most, and the margin of a busy machine
            assertThat(events.awaitArrival(job, Duration.ofSeconds(20))).isNotNull();
        }
        assertThat(listener.isListening()).isFalse();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_stat_activity WHERE datname = ?"
                + " AND application_name = 'ingestor wakeup listener'", Long.class, DATABASE)).isZero();
    }
}
