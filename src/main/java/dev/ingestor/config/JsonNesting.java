package dev.ingestor.config;

import org.springframework.boot.context.event.ApplicationStartingEvent;
import org.springframework.context.ApplicationListener;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamWriteConstraints;
import tools.jackson.core.TokenStreamFactory;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonFactoryBuilder;
import tools.jackson.databind.json.JsonMapper;

/**
 * How deeply JSON may nest: 1,000 levels read, in a pushed body and a supplier's file, what the product always took
 * (Jackson 3 lowered its default to 500, which would refuse records taken before); 1,100 written, so that a record
 * read at the limit can still be written inside what carries it (an event, a quarantine row, a stored answer).
 *
 * <p>The readers and mappers of our own take {@link #factory()}; every other mapper (Spring Boot's, which the beans
 * writing events and answers share) takes Jackson's defaults, set to the same limits when the application starts,
 * before any mapper exists (this listener is registered in {@code META-INF/spring.factories}).
 */
public class JsonNesting implements ApplicationListener<ApplicationStartingEvent> {

    public static final int MAX_DEPTH = 1000;
    public static final int MAX_WRITE_DEPTH = MAX_DEPTH + 100;

    public static final StreamReadConstraints READ = StreamReadConstraints.defaults().rebuild()
            .maxNestingDepth(MAX_DEPTH).build();
    public static final StreamWriteConstraints WRITE = StreamWriteConstraints.defaults().rebuild()
            .maxNestingDepth(MAX_WRITE_DEPTH).build();

    /** A JSON factory with these limits; others of its settings are Jackson's. */
    public static JsonFactory factory() {
        return builder().build();
    }

    /**
     * A builder of a factory with these limits for parsers of text (a Reader, a String) from outside, a supplier's file
     * above all: they keep no table of the field names they read, shared by every parser of the factory, where a file
     * of distinct long names would be held while it is read and after it (as many as 12,000 names of up to a record's
     * size). Not for bytes: without its table a parser of bytes is one of text over a decoder, and loses its byte
     * offsets.
     */
    public static JsonFactoryBuilder textBuilder() {
        return builder().disable(TokenStreamFactory.Feature.CANONICALIZE_PROPERTY_NAMES);
    }

    private static JsonFactoryBuilder builder() {
        return JsonFactory.builder().streamReadConstraints(READ).streamWriteConstraints(WRITE);
    }

    /** A mapper with Jackson's defaults and these limits, for the classes that keep one of their own. */
    public static JsonMapper mapper() {
        return JsonMapper.builder(factory()).build();
    }

    @Override
    public void onApplicationEvent(ApplicationStartingEvent event) {
        StreamReadConstraints.overrideDefaultStreamReadConstraints(READ);
        StreamWriteConstraints.overrideDefaultStreamWriteConstraints(WRITE);
    }
}
