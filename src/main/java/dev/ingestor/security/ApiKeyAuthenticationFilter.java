package dev.ingestor.security;

import java.io.IOException;
import java.util.Optional;

import dev.ingestor.web.ApiKeys;
import dev.ingestor.web.Caller;
import dev.ingestor.web.ProblemResponse;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.context.SecurityContextRepository;
import org.springframework.security.web.util.matcher.RequestMatcher;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Establishes the caller from the API key in the request's headers ({@code Authorization: Bearer <key>} or
 * {@code X-Api-Key}), before anything of the body is read. A known key: the caller becomes the request's
 * authentication and the request attribute the routes take it from, whatever the failures of its address. An
 * unknown key: 401 at once (429 once its address has failed too often). No key:
 * the request goes on anonymous, and the authorization rules decide (public pages pass, the rest is 401); the
 * answer to an anonymous request with a body closes the connection, so none of that body is waited for.
 * A key anywhere else (query string, form field) is never looked at. A metrics token ({@link MetricsToken}) is
 * taken on the Prometheus endpoint only; anywhere else it is refused 403 here, before any body is read.
 * <p>
 * A demo key (public, in the README and docs/http-api.md) is taken only on a direct loopback request ({@link
 * DirectLoopbackRequest}),
 * else 403. The rule is for requests with a demo key, not for every request while demo keys are configured:
 * the demo keys are the only keys an outsider knows, what answers without a key (the health status, the admin
 * page's files, the OpenAPI document) is public on any address anyway, and an operator's own keys keep
 * working behind a proxy while some demo key is still configured.
 */
final class ApiKeyAuthenticationFilter extends OncePerRequestFilter {

    private final ApiKeys apiKeys;
    private final MetricsToken metricsToken;
    private final RequestMatcher scrapeEndpoint;
    private final FrontDoorRefusals refusals;
    private final SecurityContextRepository contexts;

    ApiKeyAuthenticationFilter(ApiKeys apiKeys, MetricsToken metricsToken, RequestMatcher scrapeEndpoint,
            FrontDoorRefusals refusals, SecurityContextRepository contexts) {
        this.apiKeys = apiKeys;
        this.metricsToken = metricsToken;
        this.scrapeEndpoint = scrapeEndpoint;
        this.refusals = refusals;
        this.contexts = contexts;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String key = ApiKeys.presentedKey(request.getHeader("Authorization"),
                request.getHeader(ApiKeys.API_KEY_HEADER));
        if (key == null) {
            if (ProblemResponse.hasBody(request)) {
                // nothing that answers without a key reads a body: the connection ends with the answer, and
                // none of the body is waited for (web.NoDrainAfterClosingAnswers)
                response.setHeader("Connection", "close");
            }
            chain.doFilter(request, response);
            return;
        }
        String hash = ApiKeys.sha256(key);
        Optional<Caller> caller = apiKeys.callerForHash(hash);
        if (caller.isEmpty() && metricsToken.matches(hash)) {
            if (!scrapeEndpoint.matches(request)) {
                refusals.metricsTokenElsewhere(request, response);
                return;
            }
            authenticated(new MetricsScrapeAuthentication(hash), request, response);
            chain.doFilter(request, response);
            return;
        }
        if (caller.isEmpty()) {
            // the address throttle is for failures only: a valid key is never refused because others behind the
            // same proxy or NAT failed; a guesser's later tries are refused, whatever they guess, until it ends
            if (refusals.refusedAddress(request, response)) {
                return;
            }
            refusals.unauthorized(request, response, "unknown API key", ApiKeys.WRONG_KEY);
            return;
        }
        if (ApiKeys.DEMO_KEY_HASHES.contains(hash)) {
            Optional<String> notDirect = DirectLoopbackRequest.whyNot(request);
            if (notDirect.isPresent()) {
                refusals.demoKeyOffLoopback(request, response, notDirect.get(), keyProperty(caller.get()));
                return;
            }
        }
        authenticated(new ApiKeyAuthentication(caller.get(), hash), request, response);
        request.setAttribute(Caller.REQUEST_ATTRIBUTE, caller.get());
        chain.doFilter(request, response);
    }

    private void authenticated(Authentication authentication, HttpServletRequest request,
            HttpServletResponse response) {
        SecurityContext context = SecurityContextHolder.createEmptyContext();
        context.setAuthentication(authentication);
        SecurityContextHolder.setContext(context);
        contexts.saveContext(context, request, response);
    }

    /** The property that holds this caller's key hashes. */
    private static String keyProperty(Caller caller) {
        return caller.admin()
                ? "ingestor.admin.api-key-sha256"
                : "ingestor.suppliers." + caller.supplier() + ".api-key-sha256";
    }
}
