package dev.ingestor.job;

import org.apache.camel.Exchange;

/** Counts how often a stage ran for one exchange, redeliveries included, for the dead letter's record. */
public final class Attempts {

    public static final String PROPERTY = "IngestorAttempts";

    private Attempts() {
    }

    public static void count(Exchange exchange) {
        exchange.setProperty(PROPERTY, of(exchange) + 1);
    }

    public static int of(Exchange exchange) {
        return exchange.getProperty(PROPERTY, 0, Integer.class);
    }
}
