package dev.ingestor.embedded;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * Drops the one WARN the embedded broker logs at every orderly stop: Kafka 3.9's controller closes its
 * registration channel twice ("[NodeToControllerChannelManager ... name=registration] Attempting to close
 * NetworkClient that has already been closed."), and nothing is wrong. Only that line of the broker's own
 * channel is dropped; the same logger's other lines, and any client of the app closed twice, are still logged.
 *
 * <p>Installed when the broker begins to stop ({@link EmbeddedKafkaServer#close}), not while it serves: once logback
 * holds a turbo filter it asks it about every log call of every logger, the level checks of disabled lines
 * included, and Kafka's clients and broker make such checks for every record (2% of the JVM's CPU samples under
 * a 1,000,000-record file).
 */
final class BrokerShutdownNotice extends TurboFilter {

    static final String LOGGER = "org.apache.kafka.clients.NetworkClient";
    static final String CHANNEL = "NodeToControllerChannelManager";
    static final String DOUBLE_CLOSE = "Attempting to close NetworkClient that has already been closed";

    private BrokerShutdownNotice() {
    }

    /** Added once to logback, when it is the logging system (Spring Boot's default), and kept. */
    static synchronized void install() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logback
                && logback.getTurboFilterList().stream().noneMatch(BrokerShutdownNotice.class::isInstance)) {
            BrokerShutdownNotice filter = new BrokerShutdownNotice();
            filter.setName("embedded-kafka-double-close");
            filter.setContext(logback);
            filter.start();
            logback.addTurboFilter(filter);
        }
    }

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        return level == Level.WARN && format != null && LOGGER.equals(logger.getName())
                && format.contains(CHANNEL) && format.contains(DOUBLE_CLOSE) ? FilterReply.DENY : FilterReply.NEUTRAL;
    }
}
