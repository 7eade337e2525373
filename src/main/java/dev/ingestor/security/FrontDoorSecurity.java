package dev.ingestor.security;

import dev.ingestor.web.ApiKeys;
import jakarta.servlet.DispatcherType;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusScrapeEndpoint;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.annotation.web.configuration.WebSecurityCustomizer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;
import org.springframework.security.web.context.RequestAttributeSecurityContextRepository;
import org.springframework.security.web.firewall.StrictHttpFirewall;
import org.springframework.security.web.header.writers.ReferrerPolicyHeaderWriter;
import org.springframework.security.web.util.matcher.RequestMatcher;
import tools.jackson.databind.ObjectMapper;

/**
 * The HTTP front door, on Spring Security: stateless API-key authentication before anything of a body is
 * read, who may reach what, and the security headers of every answer.
 * <ul>
 *   <li>Public without a key: {@code GET /actuator/health} (status only; details and components for the
 *       admin key), the admin page's static files (they hold no data: the page asks for the key), and the
 *       OpenAPI document. Every other path, known or not, needs a key; the actuator and the admin API
 *       ({@code /api/v1/admin/**}) need the admin key, but for {@code /actuator/prometheus}, which a metrics
 *       token ({@code ingestor.metrics.bearer-token-sha256}) reaches too.</li>
 *   <li>No sessions, no cookies, so no CSRF token: a key travels in a header on every request.</li>
 *   <li>Runs before every filter that could read a body (Spring's form-content filter is switched off in
 *       application.yaml; the size-limit filter only reads Content-Length and runs later).</li>
 * </ul>
 */
@Configuration
@EnableWebSecurity
public class FrontDoorSecurity {

    /** The admin page's own files only; fetch() to the same origin; nothing may frame or embed it. */
    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

    @Bean
    FrontDoorRefusals frontDoorRefusals(FailedAuthThrottle throttle, ObjectMapper json) {
        return new FrontDoorRefusals(throttle, json);
    }

    @Bean
    SecurityFilterChain frontDoor(HttpSecurity http, ApiKeys apiKeys, MetricsToken metricsToken, KeyLimits limits,
            FrontDoorRefusals refusals) throws Exception {
        RequestAttributeSecurityContextRepository contexts = new RequestAttributeSecurityContextRepository();
        RequestMatcher scrapeEndpoint = EndpointRequest.to(PrometheusScrapeEndpoint.class);
        ApiKeyAuthenticationFilter authentication = new ApiKeyAuthenticationFilter(apiKeys, metricsToken,
                scrapeEndpoint,
                refusals, contexts);
        http.csrf(csrf -> csrf.disable())
                .httpBasic(basic -> basic.disable())
                .formLogin(form -> form.disable())
                .logout(logout -> logout.disable())
                // a saved request would be read back from the session; there is none
                .requestCache(cache -> cache.disable())
                .sessionManagement(sessions -> sessions.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .securityContext(context -> context.securityContextRepository(contexts))
                .exceptionHandling(errors -> errors.authenticationEntryPoint(refusals).accessDeniedHandler(refusals))
                .headers(headers -> headers
                        .contentSecurityPolicy(csp -> csp.policyDirectives(CONTENT_SECURITY_POLICY))
                        .frameOptions(frames -> frames.deny())
                        .referrerPolicy(
                                referrer -> referrer.policy(ReferrerPolicyHeaderWriter.ReferrerPolicy.NO_REFERRER)))
                .addFilterBefore(authentication, AnonymousAuthenticationFilter.class)
                .addFilterAfter(new KeyLimitFilter(limits, refusals), ApiKeyAuthenticationFilter.class)
                .authorizeHttpRequests(rules -> rules
                        // the asynchronous second half of a request, and error pages, of a request already let in
                        .dispatcherTypeMatchers(DispatcherType.ASYNC, DispatcherType.ERROR).permitAll()
                        .requestMatchers(EndpointRequest.to(HealthEndpoint.class)).permitAll()
                        // Prometheus scrapes with a token of its own (MetricsToken), or the admin key
                        .requestMatchers(scrapeEndpoint).hasAnyRole("ADMIN", "METRICS")
                        .requestMatchers(EndpointRequest.toAnyEndpoint()).hasRole("ADMIN")
                        // HEAD as GET: a link checker or a proxy probing the public files gets the same answer
                        .requestMatchers(HttpMethod.GET, "/admin", "/admin/", "/admin/*").permitAll()
                        .requestMatchers(HttpMethod.HEAD, "/admin", "/admin/", "/admin/*").permitAll()
                        .requestMatchers(HttpMethod.GET, "/api/v1/openapi.json").permitAll()
                        .requestMatchers(HttpMethod.HEAD, "/api/v1/openapi.json").permitAll()
                        // the admin API, known paths or not: a supplier's key learns nothing of it
                        .requestMatchers("/api/v1/admin", "/api/v1/admin/**").hasRole("ADMIN")
                        .anyRequest().authenticated());
        return http.build();
    }

    /**
     * Spring Security's own observations off: a timer and a span around each filter of the chain, each
     * authentication and each authorization, on every request, were about a sixth of the request threads' CPU in a
     * push (docs/benchmarks.md). What they measured is in Spring's {@code http.server.requests} and Camel's route
     * metrics already, which stay.
     */
    @Bean
    SecurityObservationSettings securityObservations() {
        return SecurityObservationSettings.noObservations();
    }

    /**
     * Spring Security's strict firewall, with one relaxation: {@code ;} path parameters, which the servlet
     * container strips before any path is matched, so {@code /files;x=1} is the same endpoint (and needs the
     * same key) as {@code /files}. Its refusals are problem+json like every other answer. Its header rules are
     * the same, checked without regular expressions ({@link HeaderCharacters}).
     */
    @Bean
    WebSecurityCustomizer frontDoorFirewall(FrontDoorRefusals refusals) {
        StrictHttpFirewall firewall = new StrictHttpFirewall();
        firewall.setAllowSemicolon(true);
        firewall.setAllowedHeaderNames(HeaderCharacters::allowedInName);
        firewall.setAllowedHeaderValues(HeaderCharacters::allowedInValue);
        return web -> web.httpFirewall(firewall).requestRejectedHandler(refusals);
    }
}
