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
 * Applies {@link KeyLimits} to every request with a valid key or metrics token, right after authentication. A request
 * counts as
 * in flight until its answer starts to be written ({@link ReleaseWhenAnswering}): by then its work is done, and
 * the place must be free before the client can read the answer and send its next request. Camel's platform-http
 * serves requests asynchronously, so the thread that runs the route holds the place too
 * ({@link PermitFollowsTheRoute}) and gives it back when it starts writing the answer, or when the route ends
 * if somebody else answered first (an async timeout while a slow body is still read: the route still works).
 * An answer that is never written (no body) gives the place back when it completes.
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
        if (!(authentication instanceof KeyedAuthentication caller)) {
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
        KeyLimits.Hold requestHold = permit.requestHold();
        try {
            chain.doFilter(request, new ReleaseWhenAnswering(response, () -> {
                requestHold.release();
                // the route's thread is writing its answer: the route is done with the place too
                PermitFollowsTheRoute.releaseHoldOfThisThread(permit);
            }));
        } finally {
            // an answer nobody wrote (no body) ends the request's hold when it is complete (for an asynchronous
            // request, when its async processing completes, which follows a timeout or an error too)
            AfterRequest.run(request, requestHold::release);
        }
    }
}
