package dev.ingestor.validation;

/** A record after validation: either a delivery advice, or the reason it was quarantined. */
public record Validated(RawRecord raw, DeliveryAdvice advice, String reason) {

    public boolean isValid() { return advice != null; }
}
