package dev.ingestor.web;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Filter;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.apache.catalina.Context;
import org.apache.catalina.Lifecycle;
import org.apache.tomcat.util.res.StringManager;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.stereotype.Component;

/**
 * Drops the one ERROR Tomcat logs when its error page comes after an answer has begun: a body a route reads stops
 * arriving, and the route's read and Tomcat's own check of the socket give up at the same moment. The route's side
 * answers the request (a 408 problem, or a closed connection); Tomcat's side then finds the answer begun, cannot
 * forward to its error page ({@code IllegalStateException: Cannot forward after response has been committed}), and
 * logged that with a stack trace, naming no request: a client that stalled, not a fault an operator can act on.
 * <p>
 * A {@code java.util.logging} filter on the host's logger (Tomcat logs through it; Spring Boot bridges it to the
 * app's logging), asked only about lines that logger would write: every other line of it, a failing error page
 * included, is still logged.
 */
@Component
class LateErrorPageLogFilter implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>, Filter {

    /** The class whose forward fails (not public). */
    static final String DISPATCHER = "org.apache.catalina.core.ApplicationDispatcher";

    /** Tomcat's own text for the failed forward, in the JVM's language as Tomcat writes it. */
    static final String ANSWER_BEGUN = StringManager.getManager("org.apache.catalina.core")
            .getString("applicationDispatcher.forward.ise");

    // java.util.logging keeps loggers only weakly: the filtered ones are held here, with their filter
    private final List<Logger> filtered = new CopyOnWriteArrayList<>();

    @Override
    public void customize(TomcatServletWebServerFactory factory) {
        factory.addContextLifecycleListeners(event -> {
            if (Lifecycle.BEFORE_START_EVENT.equals(event.getType()) && event.getLifecycle() instanceof Context context
                    && context.getParent() != null) {
                Logger host = Logger.getLogger(context.getParent().getLogName());
                host.setFilter(this);
                filtered.add(host);
            }
        });
    }

    @Override
    public boolean isLoggable(LogRecord line) {
        return !(line.getThrown() instanceof IllegalStateException failure && ANSWER_BEGUN.equals(failure.getMessage())
                && failure.getStackTrace().length > 0
                && DISPATCHER.equals(failure.getStackTrace()[0].getClassName()));
    }
}
