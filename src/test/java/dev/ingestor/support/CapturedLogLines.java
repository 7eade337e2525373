package dev.ingestor.support;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import org.slf4j.LoggerFactory;

/**
 * The lines one logger writes while a test runs, for checking that a failure was reported. The application
 * logs from its own threads while the test reads, so the lines are kept in a list that is safe to read from
 * another thread (logback's ListAppender is not).
 */
public final class CapturedLogLines extends AppenderBase<ILoggingEvent> implements AutoCloseable {

    private final Logger logger;
    private final List<ILoggingEvent> events = new CopyOnWriteArrayList<>();

    private CapturedLogLines(String loggerName) {
        this.logger = (Logger) LoggerFactory.getLogger(loggerName);
    }

    /** Starts capturing what {@code loggerName} (and the loggers below it) write; close to stop. */
    public static CapturedLogLines of(String loggerName) {
        CapturedLogLines lines = new CapturedLogLines(loggerName);
        lines.setContext(lines.logger.getLoggerContext());
        lines.start();
        lines.logger.addAppender(lines);
        return lines;
    }

    @Override
    protected void append(ILoggingEvent event) {
        events.add(event);
    }

    /** The formatted messages so far. */
    public List<String> messages() {
        return events.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    /** The events so far, with their levels and throwables. */
    public List<ILoggingEvent> events() {
        return List.copyOf(events);
    }

    public long count(Predicate<String> message) {
        return messages().stream().filter(message).count();
    }

    @Override
    public void close() {
        logger.detachAppender(this);
        stop();
    }
}
