package dev.ingestor.security;

import java.io.IOException;

import dev.ingestor.web.AfterRequest;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Applies {@link KeyLimits} to every request with a valid key, right after authentication. A request
 * counts as in flight until it is answered: Camel's platform-http serves requests asynchronously, so for
 * an asynchronous request the request's hold on the permit ends when the async processing ends, not when
 * this filter returns, and the thread that runs the route holds it until the route ends, even when the answer
 * was sent before (an async timeout while a slow body is still read).
 */
final class KeyLimitFilter extends OncePerRequestFilter {

    static final String PERMIT_ATTRIBUTE = KeyLimits.Permit.class.getName();

    private final KeyLimits limits;
    private final FrontDoorRefusals refusals;

    KeyLimitFilter(KeyLimits limits, FrontDoorRefusals refusals) {
        this.limits = limits;
        this.refusals = refusals;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        if (!(authentication instanceof ApiKeyAuthentication caller)) {
            chain.doFilter(request, response);
            return;
        }
        KeyLimits.Admission admission = limits.admit(caller.keyHash());
        if (admission.permit().isEmpty()) {
            refusals.tooManyRequests(request, response, admission.refusal(), admission.retryAfterSeconds());
            return;
        }
        KeyLimits.Permit permit = admission.permit().get();
        // for the thread that will run the route: it holds the place too (PermitFollowsTheRoute)
        request.setAttribute(PERMIT_ATTRIBUTE, permit);
        try {
            chain.doFilter(request, response);
        } finally {
            // the request's own hold ends when it is answered (for an asynchronous request, when its async
            // processing completes, which follows a timeout or an error too)
            AfterRequest.run(request, permit::release);
        }
    }
}
