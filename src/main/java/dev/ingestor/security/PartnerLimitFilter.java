package dev.ingestor.security;

import java.io.IOException;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Applies {@link PartnerLimits} to every request with a valid key, right after authentication. A request
 * counts as in flight until it is answered: Camel's platform-http serves requests asynchronously, so for
 * an asynchronous request the permit is released when the async processing ends, not when this filter
 * returns.
 */
final class PartnerLimitFilter extends OncePerRequestFilter {

    private final PartnerLimits limits;
    private final FrontDoorRefusals refusals;

    PartnerLimitFilter(PartnerLimits limits, FrontDoorRefusals refusals) {
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
        PartnerLimits.Admission admission = limits.admit(caller.keyHash());
        if (admission.permit().isEmpty()) {
            refusals.tooManyRequests(request, response, admission.refusal(), admission.retryAfterSeconds());
            return;
        }
        PartnerLimits.Permit permit = admission.permit().get();
        boolean releasedLater = false;
        try {
            chain.doFilter(request, response);
            if (request.isAsyncStarted()) {
                request.getAsyncContext().addListener(new ReleaseWhenAnswered(permit));
                releasedLater = true;
            }
        } finally {
            if (!releasedLater) {
                permit.release();
            }
        }
    }

    private record ReleaseWhenAnswered(PartnerLimits.Permit permit) implements AsyncListener {
        @Override
        public void onComplete(AsyncEvent event) {
            permit.release();
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            permit.release();
        }

        @Override
        public void onError(AsyncEvent event) {
            permit.release();
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            // async started again from an async dispatch: keep listening until it really ends
            event.getAsyncContext().addListener(this);
        }
    }
}
