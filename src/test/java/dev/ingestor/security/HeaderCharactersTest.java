package dev.ingestor.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ingestor.support.SlowTest;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.StrictHttpFirewall;

/**
 * {@link HeaderCharacters} answers as Spring Security's own firewall does, for a header name and a header value made
 * of any one code point (unpaired surrogates included), and for a few longer texts: a default
 * {@link StrictHttpFirewall} is asked the same question through a request, so a change of Spring's rule shows here.
 * One difference is meant: a value may hold the C1 controls (UTF-8's bytes as the servlet container reads them).
 */
class HeaderCharactersTest {

    private final StrictHttpFirewall spring = new StrictHttpFirewall();

    // slow tier: every character in every position
    @SlowTest
    @Test
    void namesAndValuesAreJudgedAsSpringSecuritysFirewallJudgesThem() {
        int differences = 0;
        StringBuilder first = new StringBuilder();
        for (int c = 0; c <= Character.MAX_CODE_POINT; c++) {
            String text = new String(Character.toChars(c));
            boolean name = HeaderCharacters.allowedInName(text);
            // a value is checked for each code point of the BMP and one in 64 beyond (the regex's answer depends on
            // the code point's type alone, and a request per code point costs time)
            boolean checkValue = c <= 0xFFFF || c % 64 == 0;
            if (name != springAllowsName(text)
                    || checkValue && HeaderCharacters.allowedInValue(text) != (springAllowsValue(text)
                            || HeaderCharacters.isC1(c))) {
                if (differences++ == 0) {
                    first.append(Integer.toHexString(c));
                }
            }
        }
        assertThat(differences).as("code points judged otherwise than Spring's firewall, the first U+" + first)
                .isZero();
        for (String text : new String[] {"", "X-Api-Key", "a\tb", "caf\u00e9 \ud83d\ude00", "a\u0000b", "a\rb",
                "\ud800x",
                "x\udc00", "\u0378", "tab\t", "\u0085"}) {
            assertThat(HeaderCharacters.allowedInName(text)).as("name " + text).isEqualTo(springAllowsName(text));
            assertThat(HeaderCharacters.allowedInValue(text)).as("value " + text)
                    .isEqualTo(springAllowsValue(text) || text.equals("\u0085"));
        }
        assertThat(HeaderCharacters.allowedInValue("a\tb")).isTrue();
        assertThat(HeaderCharacters.allowedInName("a\tb")).isFalse();
        assertThat(HeaderCharacters.allowedInValue("a\u0000b")).isFalse();
        // UTF-8's bytes as the servlet container reads them: allowed in a value, never in a name
        assertThat(HeaderCharacters.allowedInValue("\u00e2\u0082\u00ac")).isTrue();
        assertThat(HeaderCharacters.allowedInName("\u00e2\u0082\u00ac")).isFalse();
    }

    private boolean springAllowsName(String name) {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", "/");
        try {
            spring.getFirewalledRequest(request).getHeader(name);
            return true;
        } catch (RequestRejectedException e) {
            return false;
        }
    }

    private boolean springAllowsValue(String value) {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", "/");
        request.addHeader("X-Value", value);
        try {
            spring.getFirewalledRequest(request).getHeader("X-Value");
            return true;
        } catch (RequestRejectedException e) {
            return false;
        }
    }
}
