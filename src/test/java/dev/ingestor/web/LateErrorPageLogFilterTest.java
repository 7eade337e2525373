package dev.ingestor.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

/**
 * The running app's Tomcat host logs no ERROR for an error page that came after an answer had begun, and still logs
 * its other failures. The failure is made here as Tomcat makes it (its text, thrown from its dispatcher's forward):
 * the race that makes it for real ({@code StalledUploadTest}) comes about in some runs only.
 */
class LateErrorPageLogFilterTest extends IngestorTestSupport {

    @Autowired
    WebServerApplicationContext web;

    @Test
    void anErrorPageAfterTheAnswerBeganIsNotLoggedAndOtherFailuresAre() {
        String host = ((TomcatWebServer) web.getWebServer()).getTomcat().getHost().getLogName();
        // a handler of the host's logger itself sees what passes its filter, whether or not java.util.logging is
        // bridged to the app's logging at this moment (a context another test closed takes the bridge away)
        List<String> written = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord line) {
                written.add(line.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger tomcat = Logger.getLogger(host);
        tomcat.addHandler(handler);
        try {
            tomcat.log(Level.SEVERE, "Exception Processing [ErrorPage[errorCode=0, location=/error]]",
                    thrownByForward(LateErrorPageLogFilter.ANSWER_BEGUN));
            tomcat.log(Level.SEVERE, "Exception Processing [ErrorPage[errorCode=404, location=/error]]",
                    thrownByForward("the error page itself failed"));
            tomcat.log(Level.SEVERE, "Exception Processing [ErrorPage[errorCode=0, location=/error]]",
                    new IllegalStateException(LateErrorPageLogFilter.ANSWER_BEGUN));
        } finally {
            tomcat.removeHandler(handler);
        }

        assertThat(written).containsExactly("Exception Processing [ErrorPage[errorCode=404, location=/error]]",
                "Exception Processing [ErrorPage[errorCode=0, location=/error]]");
    }

    private static IllegalStateException thrownByForward(String message) {
        IllegalStateException failure = new IllegalStateException(message);
        failure.setStackTrace(new StackTraceElement[] {
                new StackTraceElement(LateErrorPageLogFilter.DISPATCHER, "forward", "ApplicationDispatcher.java", 205),
                new StackTraceElement("org.apache.catalina.core.StandardHostValve", "custom", null, 375)});
        return failure;
    }
}
