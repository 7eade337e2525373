package dev.ingestor.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;

import dev.ingestor.support.IngestorTestSupport;
import org.apache.catalina.Container;
import org.apache.catalina.core.StandardContext;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

/**
 * The servlet filters run in the order {@link FilterOrder} states: read from the running server's filter mappings,
 * the order in which Tomcat calls them.
 */
class FilterOrderTest extends IngestorTestSupport {

    @Autowired
    WebServerApplicationContext server;

    @Test
    void theServletFiltersRunInTheOrderFilterOrderStates() {
        Container[] contexts = ((TomcatWebServer) server.getWebServer()).getTomcat().getHost().findChildren();
        assertThat(contexts).hasSize(1);
        List<String> chain = Arrays.stream(((StandardContext) contexts[0]).findFilterMaps())
                .map(FilterMap::getFilterName).distinct().toList();
        assertThat(chain).containsExactly(
                "answeredByRouteFilter",
                "characterEncodingFilter",
                "webMvcObservationFilter",
                "requestContextFilter",
                "springSecurityFilterChain",
                "queryStringFilter",
                "requestSizeLimitFilter",
                "multipartCleanupFilter",
                "Tomcat WebSocket (JSR356) Filter");
    }
}
