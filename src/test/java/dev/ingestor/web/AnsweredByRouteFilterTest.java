package dev.ingestor.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.Proxy;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ingestor.support.IngestorTestSupport;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.DispatcherType;
import org.apache.camel.component.platform.http.spi.PlatformHttpConsumer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.util.ReflectionTestUtils;
import org.springframework.web.context.request.async.WebAsyncUtils;
import org.springframework.web.context.support.ServletRequestHandledEvent;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerMapping;

/**
 * A request a Camel route has answered passes the DispatcherServlet once, not twice, and everything that follows
 * the end of a request still happens; a second dispatch with something left to do still goes through.
 */
class AnsweredByRouteFilterTest extends IngestorTestSupport {

    @Autowired
    ConfigurableApplicationContext context;
    @Autowired
    MeterRegistry meters;

    @Test
    void aPushAnsweredByItsRoutePassesTheDispatcherServletOnceAndIsStillMeasured() throws Exception {
        // the DispatcherServlet publishes one event per pass (dispatch) of a request through it
        List<String> passes = new CopyOnWriteArrayList<>();
        AtomicBoolean listening = new AtomicBoolean(true);
        String files = "/api/v1/suppliers/ACME/files";
        context.addApplicationListener((ApplicationListener<ServletRequestHandledEvent>) event -> {
            if (listening.get() && event.getRequestUrl().startsWith(files)) {
                passes.add(event.getRequestUrl() + " " + event.getStatusCode());
            }
        });
        double[] before = {answered("202"), answered("200"), answered("400")};
        try {
            byte[] body = "source_id,sku,quantity,delivery_date\nanswered-1,SKU,1,2026-12-01\n"
                    .getBytes(StandardCharsets.UTF_8);
            HttpResponse<String> created = post(files, ACME_KEY, "text/csv", body, "X-File-Name", "answered.csv");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(202);
            HttpResponse<String> again = post(files, ACME_KEY, "text/csv", body, "X-File-Name", "answered.csv");
            assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
            // a route's answer that is not a success is the route's too
            assertProblem(post(files, ACME_KEY, "text/csv", new byte[0]), 400, "the request has no body");

            // the first pass is published when the request thread is done with it, which may be after the answer;
            // a second pass (the async dispatch) would follow within milliseconds
            await().atMost(Duration.ofSeconds(10)).until(() -> passes.size() >= 3);
            // on purpose: a second pass of any request would have been published by now; none may come
            Thread.sleep(1000);
            assertThat(passes).as("one pass per request").hasSize(3)
                    .allSatisfy(pass -> assertThat(pass).startsWith(files));

            // Spring's HTTP metrics still see each request end (the observation stops with the async context)
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(new double[] {
                    answered("202") - before[0], answered("200") - before[1], answered("400") - before[2]})
                    .containsExactly(1, 1, 1));
        } finally {
            listening.set(false);
        }
    }

    @Test
    void onlyTheAsyncDispatchOfACommittedAnswerOfACamelRouteEndsEarly() {
        HandlerMethod route = routeHandler();
        HandlerMethod other = handler(new Object());

        assertThat(AnsweredByRouteFilter.answeredByRoute(request(route), committed(true))).isTrue();
        assertThat(AnsweredByRouteFilter.answeredByRoute(request(route), committed(false)))
                .as("not answered yet: an async timeout's 503 or a failure's problem is still to be written").isFalse();
        assertThat(AnsweredByRouteFilter.answeredByRoute(request(other), committed(true))).as("not a Camel route")
                .isFalse();
        assertThat(AnsweredByRouteFilter.answeredByRoute(request(null), committed(true))).as("no handler found")
                .isFalse();

        AnsweredByRouteFilter filter = new AnsweredByRouteFilter();
        MockHttpServletRequest first = request(route);
        first.setDispatcherType(DispatcherType.REQUEST);
        assertThat(filter.shouldNotFilter(first)).as("the first dispatch always goes through").isTrue();
        MockHttpServletRequest async = request(route);
        async.setDispatcherType(DispatcherType.ASYNC);
        assertThat(filter.shouldNotFilter(async)).isFalse();
        assertThat(filter.shouldNotFilterAsyncDispatch()).isFalse();
    }

    @Test
    void theFilterEndsOnlyAnAnsweredDispatchAndLetsAFailedResultThrough() throws Exception {
        HandlerMethod route = routeHandler();
        AnsweredByRouteFilter filter = new AnsweredByRouteFilter();

        MockHttpServletRequest answered = request(route);
        answered.setDispatcherType(DispatcherType.ASYNC);
        MockFilterChain chain = new MockFilterChain();
        filter.doFilter(answered, committed(true), chain);
        assertThat(chain.getRequest()).as("the chain is not called").isNull();

        MockHttpServletRequest failed = request(route);
        failed.setDispatcherType(DispatcherType.ASYNC);
        // the route's future ended with an Error after the answer began: the DispatcherServlet must see it
        ReflectionTestUtils.setField(WebAsyncUtils.getAsyncManager(failed), "concurrentResult",
                new OutOfMemoryError("test"));
        chain = new MockFilterChain();
        filter.doFilter(failed, committed(true), chain);
        assertThat(chain.getRequest()).isSameAs(failed);

        MockHttpServletRequest first = request(route);
        chain = new MockFilterChain();
        filter.doFilter(first, committed(true), chain);
        assertThat(chain.getRequest()).as("a first dispatch always goes on").isSameAs(first);
    }

    /** Requests of Spring's HTTP metrics that were POSTs answered with {@code status}. */
    private double answered(String status) {
        return meters.find("http.server.requests").tag("method", "POST").tag("status", status).timers().stream()
                .mapToDouble(timer -> timer.count()).sum();
    }

    /** A handler whose bean is a Camel platform-http consumer, as CamelRequestHandlerMapping registers them. */
    private static HandlerMethod routeHandler() {
        return handler(Proxy.newProxyInstance(AnsweredByRouteFilterTest.class.getClassLoader(),
                new Class<?>[] {PlatformHttpConsumer.class}, (proxy, method, args) -> null));
    }

    private static HandlerMethod handler(Object bean) {
        try {
            return new HandlerMethod(bean, Object.class.getMethod("toString"));
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    private static MockHttpServletRequest request(HandlerMethod handler) {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/api/v1/suppliers/ACME/files");
        if (handler != null) {
            request.setAttribute(HandlerMapping.BEST_MATCHING_HANDLER_ATTRIBUTE, handler);
        }
        return request;
    }

    private static MockHttpServletResponse committed(boolean committed) {
        MockHttpServletResponse response = new MockHttpServletResponse();
        response.setCommitted(committed);
        return response;
    }
}
