package dev.ingestor.web;

import java.io.IOException;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.camel.component.platform.http.spi.PlatformHttpConsumer;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;
import org.springframework.web.context.request.async.WebAsyncUtils;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerMapping;

/**
 * Ends at once the second dispatch of a request that a Camel route has already answered.
 *
 * <p>Camel's platform-http (4.17) runs a route on Spring's task executor and hands Spring MVC a
 * {@code CompletableFuture}. When it completes, Spring dispatches the request to the container once more
 * ({@link DispatcherType#ASYNC}) only to take the route's result, which is nothing: the route has written its answer
 * itself. That dispatch went through Spring Security's filter chain, the DispatcherServlet and its handler lookup
 * again, about a tenth of what the request threads spent on a push (a JFR profile of the HTTP benchmark,
 * docs/benchmarks.md, fifth round).
 *
 * <p>Nothing is lost by ending it here. What has to happen when a request ends listens to the end of its async
 * context, which the container signals as soon as this dispatch returns: the observation behind
 * {@code http.server.requests}, {@link AfterRequest}'s clean-ups, the API key's place among its concurrent requests.
 * A dispatch that still has something to do goes on as before: an answer not yet committed (the 503 of
 * {@code spring.mvc.async.request-timeout}, a failure turned into a problem), a result that is a failure, or a
 * handler that is not a Camel route.
 */
@Component
class AnsweredByRouteFilter extends OncePerRequestFilter implements Ordered {

    @Override
    public int getOrder() { return FilterOrder.ANSWERED_BY_ROUTE; }

    @Override
    protected boolean shouldNotFilterAsyncDispatch() {
        return false;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return request.getDispatcherType() != DispatcherType.ASYNC;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (answeredByRoute(request, response)) {
            return;
        }
        chain.doFilter(request, response);
    }

    /**
     * The route's answer is committed and its future ended normally. A future that ended with a Throwable (an
     * Error the consumer does not catch, an async timeout that came after the answer began) goes on to the
     * DispatcherServlet, which logs it, records it on the request's observation and, the answer being committed,
     * has the container break the connection rather than end a partial answer as if it were whole.
     */
    static boolean answeredByRoute(HttpServletRequest request, HttpServletResponse response) {
        return response.isCommitted()
                && request.getAttribute(HandlerMapping.BEST_MATCHING_HANDLER_ATTRIBUTE) instanceof HandlerMethod handler
                && handler.getBean() instanceof PlatformHttpConsumer
                && !(WebAsyncUtils.getAsyncManager(request).getConcurrentResult() instanceof Throwable);
    }
}
