package dev.ingestor.web;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Runs a clean-up once a request is answered. Camel's platform-http consumer answers asynchronously (the
 * route runs on another thread after the filter chain has returned), so "after the chain" is not "after
 * the answer": for an asynchronous request the clean-up waits for the async context to complete.
 */
public final class AfterRequest {

    private AfterRequest() {
    }

    public static void run(HttpServletRequest request, Runnable cleanUp) {
        if (request.isAsyncStarted()) {
            request.getAsyncContext().addListener(new AsyncListener() {
                @Override
                public void onComplete(AsyncEvent event) {
                    cleanUp.run();
                }

                @Override
                public void onTimeout(AsyncEvent event) {
                    // onComplete follows
                }

                @Override
                public void onError(AsyncEvent event) {
                    // onComplete follows
                }

                @Override
                public void onStartAsync(AsyncEvent event) {
                    event.getAsyncContext().addListener(this);
                }
            });
        } else {
            cleanUp.run();
        }
    }
}
