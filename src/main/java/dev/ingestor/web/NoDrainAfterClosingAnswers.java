package dev.ingestor.web;

import java.io.IOException;

import jakarta.servlet.ServletException;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;
import org.apache.coyote.ActionCode;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.stereotype.Component;

/**
 * An answer that closes the connection ({@code Connection: close}) reads nothing more of the request's body.
 * Such answers are the refusals made before a body is read ({@link ProblemResponse}) and whatever answers an
 * anonymous request with a body. Tomcat would otherwise read and throw away the rest of the declared body after
 * the answer, up to {@code server.tomcat.max-swallow-size}, on the request thread, each read waiting up to
 * {@code server.tomcat.connection-timeout}: a client that sends a byte now and then, or nothing, held a request
 * thread long after its 401, and a few hundred such connections held them all, health probes included. Tomcat
 * skips that reading by itself only for a few statuses (400, 408, 411, 413, 414, 500, 501, 503).
 * <p>
 * Installed on the engine, around every other valve, so that it acts once the answer is complete. Telling Tomcat
 * to stop reading marks the exchange failed, and Tomcat turns a status below 400 it has not sent yet into 500, so
 * the answer is sent first, as the application wrote it.
 */
@Component
class NoDrainAfterClosingAnswers implements WebServerFactoryCustomizer<TomcatServletWebServerFactory> {

    @Override
    public void customize(TomcatServletWebServerFactory factory) {
        factory.addEngineValves(new NoDrainValve());
    }

    static final class NoDrainValve extends ValveBase {

        NoDrainValve() {
            super(true);
        }

        @Override
        public void invoke(Request request, Response response) throws IOException, ServletException {
            getNext().invoke(request, response);
            // only a request answered without going asynchronous: a route's answer is written and ended on other
            // threads, and the container passes such a request through here again when it dispatches it back
            if (request.getAsyncContextInternal() != null || !closesTheConnection(response)) {
                return;
            }
            try {
                response.flushBuffer();
            } catch (IOException e) {
                // the client is gone: nothing to send, and nothing to read either
            }
            request.getCoyoteRequest().action(ActionCode.DISABLE_SWALLOW_INPUT, null);
        }

        private static boolean closesTheConnection(Response response) {
            for (String value : response.getHeaders("Connection")) {
                for (String token : value.split(",")) {
                    if (token.trim().equalsIgnoreCase("close")) {
                        return true;
                    }
                }
            }
            return false;
        }
    }
}
