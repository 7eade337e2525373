package dev.ingestor.embedded;

import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.common.utils.Exit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the embedded broker does where Kafka would end the process. A fatal fault of the broker (its log folder failed:
 * a disk full, which the broker shares with the raw store and the embedded PostgreSQL in the data folder) calls
 * Kafka's {@code Exit.halt}, which ends the JVM on the spot: no request answered, no job handed back, no orderly stop.
 * In this JVM the broker stops instead, with an ERROR line, and then what its starter asked for runs: the app stops in
 * order (requests answered, jobs handed back) and ends with status 1, for whatever runs it to start it again with the
 * broker ({@code KafkaConfiguration}). Only the embedded default installs this; with a broker of one's own nothing in
 * the JVM calls {@code Exit}.
 */
final class BrokerFatalFaults {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafkaServer.class);

    private BrokerFatalFaults() {
    }

    /** Stops the broker with {@code stop} (once, on a thread of its own) where Kafka would end the JVM. */
    static void install(Runnable stop) {
        AtomicBoolean stopping = new AtomicBoolean();
        Exit.Procedure instead = (status, message) -> {
            LOG.error("the embedded Kafka broker met a fatal fault ({}) and stops, where Kafka would end the process on"
                    + " the spot; its events wait in the outbox (a full disk of ingestor.data-dir: make room on it)",
                    message);
            if (stopping.compareAndSet(false, true)) {
                Thread stopper = new Thread(stop, "embedded-kafka-fatal-fault-stop");
                stopper.setDaemon(true);
                stopper.start();
            }
        };
        Exit.setHaltProcedure(instead);
        Exit.setExitProcedure(instead);
    }

    /** Kafka's own again: the broker has stopped. */
    static void uninstall() {
        Exit.resetHaltProcedure();
        Exit.resetExitProcedure();
    }
}
