package dev.ingestor.web;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.context.request.async.WebAsyncUtils;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The servlet container's error page ({@code /error}) as problem+json, in place of Spring Boot's, which answers
 * with an HTML page naming Spring Boot or a JSON of its own. The container sends a request there when an answer
 * ended in an error no one wrote: a method it refuses ({@code TRACE}), a body that stopped arriving (Tomcat's
 * 408 after {@code server.tomcat.connection-timeout}) or broke off, an exception that escaped a route. The
 * problem holds the status, a title and a detail fixed per status: never text of the request or of an
 * exception. A request for {@code /error} itself is answered as any path without a route.
 */
@Controller
class ErrorPageProblems implements ErrorController, WebMvcConfigurer {

    private static final MediaType PROBLEM = MediaType.parseMediaType(Problem.MEDIA_TYPE);

    private final String path;
    private final Map<Integer, String> details;

    public ErrorPageProblems(@Value("${spring.web.error.path:/error}") String path,
            @Value("${server.tomcat.connection-timeout:60s}") Duration connectionTimeout) {
        this.path = path;
        this.details = Map.of(
                400, "the request could not be read: its body broke off or its framing (chunks) is malformed",
                404, "there is nothing at this path",
                405, "this method is not taken at this path; the Allow header lists those that are",
                408, "the body stopped arriving: nothing came for " + connectionTimeout.toSeconds()
                        + " s (server.tomcat.connection-timeout); send the whole request again",
                413, "the request is larger than a limit of the server",
                500, "the server failed to answer this request; it is logged",
                503, "the server cannot answer this request now; retry later");
    }

    /**
     * On an error dispatch that follows an asynchronous request (a route's read of a body that stopped arriving),
     * Spring MVC would process that request's pending result (the route's exception) in place of this handler, and
     * render a view named after the path: the error page is what answers, so the pending result is dropped.
     */
    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(new HandlerInterceptor() {
            @Override
            public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
                if (request.getDispatcherType() == DispatcherType.ERROR) {
                    WebAsyncUtils.getAsyncManager(request).clearConcurrentResult();
                }
                return true;
            }
        }).addPathPatterns(path);
    }

    @RequestMapping("${spring.web.error.path:/error}")
    ResponseEntity<Problem> error(HttpServletRequest request, HttpServletResponse response) {
        if (request.getDispatcherType() != DispatcherType.ERROR) {
            return answer(problem(404));
        }
        // the status the container set for the error page; the answer's own should the attribute be missing
        Object attribute = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        int status = attribute instanceof Integer code ? code : response.getStatus();
        return answer(problem(status < 400 ? 500 : status));
    }

    Problem problem(int status) {
        HttpStatus known = HttpStatus.resolve(status);
        String title = known == null ? "Error" : known.getReasonPhrase();
        String slug = known == null ? "http-" + status : known.name().toLowerCase(Locale.ROOT).replace('_', '-');
        String detail = details.getOrDefault(status, "the server refused the request (" + status + ")");
        return Problem.of(status, slug, title, detail);
    }

    private static ResponseEntity<Problem> answer(Problem problem) {
        return ResponseEntity.status(problem.status()).contentType(PROBLEM).body(problem);
    }
}
