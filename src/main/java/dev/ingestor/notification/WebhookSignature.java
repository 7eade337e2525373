package dev.ingestor.notification;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code X-Ingestor-Signature} header: {@code t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>}.
 * The timestamp is signed with the body so a receiver can refuse an old request replayed with its signature.
 */
final class WebhookSignature {

    public static final String HEADER = "X-Ingestor-Signature";

    private WebhookSignature() {
    }

    /** The header's value for {@code body} (the exact bytes sent) at {@code unixSeconds}. */
    public static String header(String secret, long unixSeconds, byte[] body) {
        return "t=" + unixSeconds + ",v1=" + hmac(secret, unixSeconds, body);
    }

    /** Hex HMAC-SHA256 of {@code <unixSeconds>.<body>} under {@code secret}. */
    public static String hmac(String secret, long unixSeconds, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update((unixSeconds + ".").getBytes(StandardCharsets.US_ASCII));
            return HexFormat.of().formatHex(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }
}
