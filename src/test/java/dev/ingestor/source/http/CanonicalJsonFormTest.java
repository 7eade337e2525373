package dev.ingestor.source.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The canonical form is stored: a request's fingerprint is kept with its Idempotency-Key, and a retry sent
 * after an upgrade must give the same one. These forms are what the product wrote before (Jackson 2); a
 * library upgrade that changes any of them would answer a faithful retry as a different request.
 */
class CanonicalJsonFormTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {"b":1,"a":2}                                  | {"a":2,"b":1}
            {"price":1.50,"r":1e2,"s":-0.0,"w":1.0,"v":12345678901234567890123} | {"price":1.5,"r":1E+2,"s":0,"v":12345678901234567890123,"w":1}
            {"x":"caf\\u00e9 \\ud83d\\ude00","y":"\\"q\\"\\\\/"} | {"x":"café \\uD83D\\uDE00","y":"\\"q\\"\\\\/"}
            {"j":3.14159265358979323846264338327950288419716939937510,"k":1.23e-10,"n":-0} | {"j":3.1415926535897932384626433832795028841971693993751,"k":1.23E-10,"n":0}
            {"nested":{"z":{"b":[],"a":{}},"a":"\\t"}}     | {"nested":{"a":"\\t","z":{"a":{},"b":[]}}}
            [1, 2.50, "x", null, true]                      | [1,2.5,"x",null,true]
            """)
    void isWhatTheProductAlwaysWrote(String body, String canonical) {
        byte[] written = CanonicalJson.canonical(CanonicalJson.parse(body.getBytes(StandardCharsets.UTF_8)));
        assertThat(new String(written, StandardCharsets.UTF_8)).isEqualTo(canonical);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            {"sku":"A-1","price":1.50}  | {"price":1.5,"sku":"A-1"}
            """)
    void twoSpellingsOfOneRequestHaveOneFingerprint(String one, String other) {
        assertThat(CanonicalJson.fingerprint("p", CanonicalJson.parse(one.getBytes(StandardCharsets.UTF_8))))
                .isEqualTo(CanonicalJson.fingerprint("p", CanonicalJson.parse(other.getBytes(StandardCharsets.UTF_8))));
    }

    /** Jackson 3 refuses 500 levels by default; the product took 1,000 before and still does, and no more. */
    @Test
    void aBodyNestedAsDeepAsBeforeIsTakenAndOneLevelMoreIsRefused() {
        String deep = "{\"a\":" + "[".repeat(998) + "1" + "]".repeat(998) + "}";
        assertThat(new String(CanonicalJson.canonical(CanonicalJson.parse(deep.getBytes(StandardCharsets.UTF_8))),
                StandardCharsets.UTF_8)).isEqualTo(deep);
        String deeper = "{\"a\":" + "[".repeat(1000) + "1" + "]".repeat(1000) + "}";
        assertThatThrownBy(() -> CanonicalJson.parse(deeper.getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("nesting depth");
    }
}
