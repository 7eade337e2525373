package dev.ingestor.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.logging.Level;
import java.util.logging.Logger;

import dev.ingestor.support.CapturedLogs;
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
        try (CapturedLogs logs = CapturedLogs.of("org.apache.catalina")) {
            Logger tomcat = Logger.getLogger(host);
            tomcat.log(Level.SEVERE, "Exception Processing [ErrorPage[errorCode=0, location=/error]]",
                    thrownByForward(LateErrorPageLogFilter.ANSWER_BEGUN));
            tomcat.log(Level.SEVERE, "Exception Processing [ErrorPage[errorCode=404, location=/error]]",
                    thrownByForward("the error page itself failed"));
            tomcat.log(Level.SEVERE, "Exception Processing [ErrorPage[errorCode=0, location=/error]]",
                    new IllegalStateException(LateErrorPageLogFilter.ANSWER_BEGUN));

            assertThat(logs.messages()).containsExactly(
                    "Exception Processing [ErrorPage[errorCode=404, location=/error]]",
                    "Exception Processing [ErrorPage[errorCode=0, location=/error]]");
        }
    }

    private static IllegalStateException thrownByForward(String message) {
        IllegalStateException failure = new IllegalStateException(message);
        failure.setStackTrace(new StackTraceElement[] {
                new StackTraceElement(LateErrorPageLogFilter.DISPATCHER, "forward", "ApplicationDispatcher.java", 205),
                new StackTraceElement("org.apache.catalina.core.StandardHostValve", "custom", null, 375)});
        return failure;
    }
}
