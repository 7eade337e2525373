package dev.ingestor.logging;

import java.util.List;

import ch.qos.logback.classic.PatternLayout;
import org.springframework.boot.context.event.ApplicationStartingEvent;
import org.springframework.context.ApplicationListener;

/**
 * Makes {@link EscapedMessageConverter} the converter of logback's message words ({@code %m}, {@code %msg},
 * {@code %message}) for every pattern layout built from now on, before Spring Boot configures logging. Done on
 * logback's defaults rather than in one logback configuration file, so it holds for Spring Boot's default
 * console and file patterns, a {@code logging.pattern.*} of the operator's and a logback file of their own
 * alike (structured JSON logging escapes by itself).
 */
public class EscapedLogMessages implements ApplicationListener<ApplicationStartingEvent> {

    static final List<String> MESSAGE_WORDS = List.of("m", "msg", "message");

    @Override
    public void onApplicationEvent(ApplicationStartingEvent event) {
        install();
    }

    public static void install() {
        for (String word : MESSAGE_WORDS) {
            PatternLayout.DEFAULT_CONVERTER_SUPPLIER_MAP.put(word, EscapedMessageConverter::new);
        }
    }
}
