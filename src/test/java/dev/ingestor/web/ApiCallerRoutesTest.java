package dev.ingestor.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.ingestor.support.IngestorTestSupport;
import org.apache.camel.Consumer;
import org.apache.camel.Exchange;
import org.apache.camel.Route;
import org.apache.camel.component.platform.http.springboot.PlatformHttpMessage;
import org.apache.camel.component.platform.http.springboot.SpringBootPlatformHttpBinding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/**
 * The route configurations of routes/api-callers.camel.yaml reach every REST route: each one takes its caller
 * before it does anything (401 when no front door established one), and each admin route refuses a supplier's
 * key by itself, as the defence behind the front door's path rule. The front door cannot be passed over HTTP,
 * so the routes are called here through their consumers, with a servlet request that carries the caller the front door
 * would
 * have set (the request attribute is the only thing a route reads of it).
 */
@Timeout(120)
class ApiCallerRoutesTest extends IngestorTestSupport {

    @Test
    void everyRestRouteTakesItsCallerFirst() {
        List<String> routes = restRoutes();
        assertThat(routes).contains("job-list", "http-file-push", "http-items", "admin-overview");
        for (String route : routes) {
            Exchange answered = call(route, null);
            assertThat(answered.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class)).as(route)
                    .isEqualTo(401);
            assertThat(body(answered)).as(route).contains("this API needs a key");
        }
    }

    @Test
    void everyAdminRouteRefusesASupplierKeyByItself() {
        List<String> admin = restRoutes().stream().filter(id -> id.startsWith("admin-")).toList();
        // every admin route, whatever their number: a new one is checked here without a change to this test
        assertThat(admin)
                .contains("admin-overview", "admin-jobs", "admin-throughput", "admin-preview", "admin-retry-failed",
                        "admin-retry-intake-failure")
                .hasSizeGreaterThanOrEqualTo(15);
        for (String route : admin) {
            Exchange answered = call(route, Caller.supplier("ACME"));
            assertThat(answered.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class)).as(route)
                    .isEqualTo(403);
            assertThat(body(answered)).as(route).contains("the admin API needs the admin key");
        }
        // and the admin key passes the same check
        Exchange overview = call("admin-overview", Caller.operator());
        assertThat(overview.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class)).isEqualTo(200);
    }

    /** The routes the REST DSL serves (each verb and its route are one route, from a rest: endpoint). */
    private List<String> restRoutes() {
        return camelContext.getRoutes().stream()
                .filter(route -> route.getEndpoint().getEndpointUri().startsWith("rest:"))
                .map(Route::getRouteId).sorted().toList();
    }

    /** A request as the route's platform-http consumer hands it on, with the caller the front door would have set. */
    private Exchange call(String routeId, Caller caller) {
        MockHttpServletRequest request = new MockHttpServletRequest();
        if (caller != null) {
            request.setAttribute(Caller.REQUEST_ATTRIBUTE, caller);
        }
        Consumer consumer = camelContext.getRoute(routeId).getConsumer();
        Exchange exchange = consumer.createExchange(false);
        exchange.setIn(new PlatformHttpMessage(request, new MockHttpServletResponse(), exchange,
                new SpringBootPlatformHttpBinding(), true));
        try {
            consumer.getProcessor().process(exchange);
        } catch (Exception e) {
            throw new AssertionError("route " + routeId + " did not answer", e);
        }
        return exchange;
    }

    private static String body(Exchange exchange) {
        Object body = exchange.getMessage().getBody();
        return body instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(body);
    }
}
