package dev.ingestor.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import jakarta.servlet.http.HttpServletRequestWrapper;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;

/** What counts as a request made directly to a loopback name, the only kind the demo keys answer. */
class DirectLoopbackRequestTest {

    private static MockHttpServletRequest request(String host, String remoteAddr) {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/v1/jobs");
        if (host != null) {
            request.addHeader("Host", host);
            request.setServerName(host.startsWith("[") ? host.substring(0, host.indexOf(']') + 1) : host.split(":")[0]);
        }
        request.setRemoteAddr(remoteAddr);
        return request;
    }

    @Test
    void loopbackNamesWithAnyPortAreDirect() {
        for (String host : List.of("localhost", "LOCALHOST:8080", "127.0.0.1", "127.0.0.1:1", "[::1]", "[::1]:8080")) {
            assertThat(DirectLoopbackRequest.whyNot(request(host, "127.0.0.1"))).as(host).isEmpty();
        }
        assertThat(DirectLoopbackRequest.whyNot(request("localhost", "0:0:0:0:0:0:0:1"))).isEmpty();
    }

    @Test
    void anyOtherHostOrNoneIsNot() {
        for (String host : List.of("rebind.example", "localhost.rebind.example", "localhost:", "localhost:80x",
                "127.0.0.2",
                "[::1]x", "127.0.0.1.nip.io", "0.0.0.0", "")) {
            assertThat(DirectLoopbackRequest.whyNot(request(host, "127.0.0.1"))).as(host).hasValueSatisfying(
                    why -> assertThat(why).contains("Host is not localhost"));
        }
        assertThat(DirectLoopbackRequest.whyNot(request(null, "127.0.0.1"))).isPresent();
    }

    @Test
    void aServerNameTakenFromAForwardedHostIsNot() {
        // Spring's ForwardedHeaderFilter (server.forward-headers-strategy=framework) removes the header it read
        HttpServletRequestWrapper request = new HttpServletRequestWrapper(request("localhost:8080", "127.0.0.1")) {
            @Override
            public String getServerName() { return "api.example.com"; }
        };
        assertThat(DirectLoopbackRequest.whyNot(request)).hasValueSatisfying(why -> assertThat(why).contains("Host"));
    }

    @Test
    void forwardingHeadersOrAClientAddressTakenFromOneAreNot() {
        for (String header : DirectLoopbackRequest.FORWARDING_HEADERS) {
            MockHttpServletRequest request = request("localhost", "127.0.0.1");
            request.addHeader(header, "203.0.113.9");
            assertThat(DirectLoopbackRequest.whyNot(request)).as(header)
                    .hasValueSatisfying(why -> assertThat(why).contains(header));
        }
        // a forwarding strategy took the client address from a header and removed it
        for (String client : List.of("203.0.113.9", "2001:db8::1", "attacker.example", "")) {
            assertThat(DirectLoopbackRequest.whyNot(request("localhost", client))).as(client)
                    .hasValueSatisfying(why -> assertThat(why).contains("client address"));
        }
    }

    @Test
    void addressesAreReadAsLiteralsOnly() {
        assertThat(IpLiterals.isLoopback("127.0.0.1")).isTrue();
        assertThat(IpLiterals.isLoopback("127.1.2.3")).isTrue();
        assertThat(IpLiterals.isLoopback("::1")).isTrue();
        assertThat(IpLiterals.isLoopback("[::1]")).isTrue();
        assertThat(IpLiterals.isLoopback("::ffff:127.0.0.1")).isTrue();
        // names are never looked up (localhost would resolve to loopback), malformed literals are no address
        for (String text : List.of("localhost", "attacker.example", "999.0.0.1", "127.0.0", "1::2::3", "[::1", "",
                " ")) {
            assertThat(IpLiterals.parse(text)).as(text).isEmpty();
        }
        assertThat(IpLiterals.parse("2001:db8::1")).isPresent();
    }
}
