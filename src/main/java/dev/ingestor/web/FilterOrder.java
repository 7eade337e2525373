package dev.ingestor.web;

import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterProperties;
import org.springframework.core.Ordered;

/**
 * The order of the servlet filters a request passes, the whole chain in one place: a lower number runs first.
 * Each of this application's filters takes its order from here; Spring Boot's own are listed for where ours
 * stand among them. {@code FilterOrderTest} reads the chain from the running server and checks it against this.
 *
 * <ol>
 *   <li>{@link #ANSWERED_BY_ROUTE}, first of all: the second (ASYNC) dispatch of a request a Camel route has already
 *       answered ends before anything else runs for it ({@link AnsweredByRouteFilter}). Spring Boot's character
 *       encoding filter has the same order and comes after it (equal orders keep the order of registration).</li>
 *   <li>Spring Boot's: character encoding (highest precedence), the HTTP observation behind
 *       {@code http.server.requests} (highest precedence + 1) and the request context (-105).</li>
 *   <li>{@link #SECURITY}, Spring Security's filter chain ({@code spring.security.filter.order}, left at its
 *       default): the API key is checked before any body is read. Inside it, {@code FrontDoorSecurity} places the
 *       key's authentication before Spring Security's anonymous one and the key's limits right after it.</li>
 *   <li>{@link #QUERY_STRING}: a query string the container would refuse to parse (not UTF-8, a parameter without a
 *       name, too many parameters) answered 400 before anything reads it, after authentication
 *       ({@link QueryStringFilter}).</li>
 *   <li>{@link #REQUEST_SIZE_LIMIT}: the body's size, after authentication, so an anonymous caller's body is never
 *       read ({@link RequestSizeLimitFilter}).</li>
 *   <li>{@link #MULTIPART_CLEANUP}: a multipart request's own temporary folder, made once its size was accepted
 *       ({@link MultipartCleanupFilter}).</li>
 * </ol>
 * Spring Boot's form content filter would read a form body before the key is checked; application.yaml turns it off.
 */
public final class FilterOrder {

    public static final int ANSWERED_BY_ROUTE = Ordered.HIGHEST_PRECEDENCE;
    /** Spring Boot's default for Spring Security's chain; stated here, set by Spring Boot. */
    public static final int SECURITY = SecurityFilterProperties.DEFAULT_FILTER_ORDER;
    public static final int REQUEST_SIZE_LIMIT = Ordered.LOWEST_PRECEDENCE - 100;
    public static final int QUERY_STRING = REQUEST_SIZE_LIMIT - 1;
    public static final int MULTIPART_CLEANUP = REQUEST_SIZE_LIMIT + 1;

    private FilterOrder() {
    }
}
