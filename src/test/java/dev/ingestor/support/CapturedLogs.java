package dev.ingestor.support;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import org.slf4j.LoggerFactory;

/**
 * The log lines of some loggers while a test runs. Lines arrive on the application's threads (routes, HTTP
 * workers, pollers) while the test thread reads them, so they are kept in a list safe for that; logback's
 * {@code ListAppender} keeps a plain ArrayList, which a reader on another thread may see half-updated.
 */
public final class CapturedLogs extends AppenderBase<ILoggingEvent> implements AutoCloseable {

    private final List<ILoggingEvent> events = new CopyOnWriteArrayList<>();
    private final List<String> loggers;

    private CapturedLogs(List<String> loggers) {
        this.loggers = loggers;
    }

    /** Starts capturing what these loggers (and their children) write; {@link #close()} stops it. */
    public static CapturedLogs of(String... loggers) {
        CapturedLogs capture = new CapturedLogs(List.of(loggers));
        capture.start();
        for (String name : loggers) {
            ((Logger) LoggerFactory.getLogger(name)).addAppender(capture);
        }
        return capture;
    }

    @Override
    protected void append(ILoggingEvent event) {
        // the message and its arguments are fixed now, on the thread that logged, not later when a test reads it
        event.prepareForDeferredProcessing();
        events.add(event);
    }

    /** The lines so far, oldest first: a snapshot that later lines do not change. */
    public List<ILoggingEvent> events() {
        return List.copyOf(events);
    }

    /** The formatted messages so far, oldest first. */
    public List<String> messages() {
        return events.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    /** How many lines so far contain {@code text}. */
    public long count(String text) {
        return events.stream().filter(e -> e.getFormattedMessage().contains(text)).count();
    }

    @Override
    public void close() {
        for (String name : loggers) {
            ((Logger) LoggerFactory.getLogger(name)).detachAppender(this);
        }
        stop();
    }
}
