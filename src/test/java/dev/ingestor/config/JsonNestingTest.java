package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Spring Boot's mapper, which writes events and answers, takes a record read at the nesting limit and its wrapping. */
class JsonNestingTest extends IngestorTestSupport {

    @Autowired
    JsonMapper springsMapper;

    @Test
    void springsMapperReadsAndWritesAsDeepAsTheReaders() {
        String record = "[".repeat(JsonNesting.MAX_DEPTH - 1) + "1" + "]".repeat(JsonNesting.MAX_DEPTH - 1);
        JsonNode read = springsMapper.readTree("{\"record\":" + record + "}");
        String event = springsMapper.writeValueAsString(springsMapper.createObjectNode().set("payload", read));
        assertThat(event).startsWith("{\"payload\":{\"record\":[[[").hasSize(record.length() + 23);
    }
}
