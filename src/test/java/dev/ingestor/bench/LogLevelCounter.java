package dev.ingestor.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import org.slf4j.LoggerFactory;

/**
 * Counts WARN and ERROR events of the whole application (root logger) and keeps the first few of them, so
 * that the benchmark can say whether anything went wrong while it measured.
 */
final class LogLevelCounter extends AppenderBase<ILoggingEvent> {

    private static final int KEEP = 20;

    private final AtomicLong warn = new AtomicLong();
    private final AtomicLong error = new AtomicLong();
    private final List<String> kept = new ArrayList<>();

    static LogLevelCounter attach() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        LogLevelCounter counter = new LogLevelCounter();
        counter.setContext(context);
        counter.setName("bench-level-counter");
        counter.start();
        context.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(counter);
        return counter;
    }

    void detach() {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.getLogger(Logger.ROOT_LOGGER_NAME).detachAppender(this);
        stop();
    }

    @Override
    protected void append(ILoggingEvent event) {
        Level level = event.getLevel();
        if (level.isGreaterOrEqual(Level.ERROR)) {
            error.incrementAndGet();
            keep(event);
        } else if (level.isGreaterOrEqual(Level.WARN)) {
            warn.incrementAndGet();
            keep(event);
        }
    }

    private void keep(ILoggingEvent event) {
        synchronized (kept) {
            if (kept.size() < KEEP) {
                String message = event.getFormattedMessage();
                if (message != null && message.length() > 400) {
                    message = message.substring(0, 400) + "...";
                }
                kept.add(event.getLevel() + " [" + event.getThreadName() + "] " + event.getLoggerName() + ": "
                        + message);
            }
        }
    }

    Snapshot snapshot() {
        synchronized (kept) {
            return new Snapshot(warn.get(), error.get(), kept.size());
        }
    }

    /** The WARN/ERROR lines kept since {@code since}. */
    List<String> keptSince(Snapshot since) {
        synchronized (kept) {
            return new ArrayList<>(kept.subList(Math.min(since.kept(), kept.size()), kept.size()));
        }
    }

    record Snapshot(long warn, long error, int kept) {
        Snapshot minus(Snapshot before) {
            return new Snapshot(warn - before.warn, error - before.error, kept - before.kept);
        }
    }
}
