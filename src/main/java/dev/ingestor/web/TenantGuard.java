package dev.ingestor.web;

import java.util.regex.Pattern;

import dev.ingestor.intake.IntakeGate;
import org.apache.camel.Exchange;
import org.springframework.stereotype.Component;

/**
 * Scopes a request to one supplier: the code in its path must be well formed, configured, and the caller's
 * own (or the caller holds the admin key). Someone else's supplier looks exactly like an unknown one (404,
 * not 403), so a key tells nothing about the suppliers it cannot reach.
 */
@Component
public class TenantGuard {

    private static final Pattern CODE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    private final IntakeGate gate;

    public TenantGuard(IntakeGate gate) {
        this.gate = gate;
    }

    /** The supplier code of path parameter {@code param}, checked; otherwise a 400 or 404 problem. */
    public String supplierFor(Exchange exchange, String param) {
        String code = exchange.getMessage().getHeader(param, String.class);
        if (code == null || !CODE.matcher(code).matches()) {
            throw ApiProblemException.badRequest("bad-path", "path segment {" + param + "} '"
                    + dev.ingestor.logging.SafeText.of(code, 80) + "' is not a supplier code: 1 to 64 letters, digits,"
                    + " '-', '_' or '.', starting with a letter or digit");
        }
        Caller caller = caller(exchange);
        if (!caller.mayActFor(code) || !gate.isSupplier(code)) {
            throw ApiProblemException.notFound("no " + param + " '" + code + "'");
        }
        return code;
    }

    public static Caller caller(Exchange exchange) {
        Caller caller = exchange.getProperty(Caller.PROPERTY, Caller.class);
        if (caller == null) {
            throw new IllegalStateException("route " + exchange.getFromRouteId()
                    + " has no caller: it needs the route configuration api-caller or admin-caller (routes/api-callers.camel.yaml)");
        }
        return caller;
    }
}
