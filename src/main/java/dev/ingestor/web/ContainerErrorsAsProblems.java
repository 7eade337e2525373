package dev.ingestor.web;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import org.apache.catalina.Container;
import org.apache.catalina.Valve;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Errors Tomcat answers itself, before any filter or servlet runs (a path it refuses such as {@code /a/..%2fb}
 * or {@code %00}, a request that timed out while queued), come out as problem+json like every other answer:
 * Tomcat's own error page is HTML, names the server and its version, and may show a stack trace. Installed as
 * the host's error report valve, in place of Tomcat's (and after Spring Boot's own customizer, which adds one).
 */
@Component
class ContainerErrorsAsProblems implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>, Ordered {

    @Override
    public void customize(TomcatServletWebServerFactory factory) {
        factory.addContextCustomizers(context -> {
            Container host = context.getParent();
            for (Valve valve : host.getPipeline().getValves()) {
                if (valve instanceof ErrorReportValve) {
                    host.getPipeline().removeValve(valve);
                }
            }
            if (host instanceof StandardHost standard) {
                // otherwise the host adds Tomcat's at start, as it finds none of that class
                standard.setErrorReportValveClass(ProblemReportValve.class.getName());
            }
            host.getPipeline().addValve(new ProblemReportValve());
        });
    }

    @Override
    public int getOrder() { return Ordered.LOWEST_PRECEDENCE; }

    /** Writes the error status as problem+json; nothing of the request, the exception or the server in it. */
    public static class ProblemReportValve extends ErrorReportValve {

        private static final ObjectMapper JSON = new JsonMapper();

        public ProblemReportValve() {
            setShowReport(false);
            setShowServerInfo(false);
        }

        @Override
        protected void report(Request request, Response response, Throwable throwable) {
            int status = response.getStatus();
            if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
                return;
            }
            java.util.concurrent.atomic.AtomicBoolean ioAllowed = new java.util.concurrent.atomic.AtomicBoolean(true);
            response.getCoyoteResponse().action(org.apache.coyote.ActionCode.IS_IO_ALLOWED, ioAllowed);
            if (!ioAllowed.get()) {
                return;
            }
            HttpStatus known = HttpStatus.resolve(status);
            String title = known == null ? "Error" : known.getReasonPhrase();
            String detail = status == 400
                    ? "the request line, path or headers are not acceptable (e.g. an encoded slash, dot segment or control character in the path)"
                    : status == 408
                            ? "the request was not received in time; send it again"
                            : "the server refused the request (" + status + ")";
            Problem problem = Problem.of(status, status == 400 ? "bad-request" : "http-" + status, title, detail);
            try {
                byte[] body = JSON.writeValueAsBytes(problem);
                response.setContentType(Problem.MEDIA_TYPE);
                response.setCharacterEncoding(StandardCharsets.UTF_8.name());
                response.setContentLength(body.length);
                response.getOutputStream().write(body);
                response.finishResponse();
            } catch (JacksonException | IOException | IllegalStateException e) {
                // the client is gone or the answer was already under way: nothing more to tell it
            }
        }
    }
}
