package dev.ingestor.notification;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * A webhook URL that cannot be sent to stops the start, naming the property and what is wrong, and not the URL (some
 * services put their secret in it): otherwise every notification would fail, or be refused, until it is given up.
 */
class WebhookUrlCheckTest {

    private static final String PROPERTY = "ingestor.notifications.webhook-url";

    @Test
    void aUrlThatCanBeSentToPasses() {
        assertThatCode(() -> NotificationWriter.checkUrl(PROPERTY, "https://hooks.example.com:8443/in?token=s3cret"))
                .doesNotThrowAnyException();
        assertThatCode(() -> NotificationWriter.checkUrl(PROPERTY, "http://127.0.0.1/in")).doesNotThrowAnyException();
        assertThatCode(() -> NotificationWriter.checkUrl(PROPERTY, "")).doesNotThrowAnyException();
    }

    /** Java's HTTP client fails each send with "port out of range": every notification would fail until given up. */
    @Test
    void aPortOutOfRangeStopsTheStart() {
        assertThatThrownBy(() -> NotificationWriter.checkUrl(PROPERTY, "https://hooks.example.com:99999/in"))
                .hasMessage(PROPERTY + " has port 99999; a port is 1 to 65535");
        assertThatThrownBy(() -> NotificationWriter.checkUrl(PROPERTY, "https://hooks.example.com:0/in"))
                .hasMessageContaining("has port 0");
    }

    /** Java's HTTP client sends no credentials from the URL: the receiver would refuse every notification. */
    @Test
    void credentialsBeforeTheHostStopTheStartWithoutBeingRepeated() {
        assertThatThrownBy(() -> NotificationWriter.checkUrl(PROPERTY, "https://ops:hunter2@hooks.example.com/in"))
                .hasMessageStartingWith(PROPERTY + " holds credentials before its host")
                .satisfies(e -> org.assertj.core.api.Assertions.assertThat(e.getMessage()).doesNotContain("hunter2"));
    }

    @Test
    void aUrlWithoutHostOrOfAnotherSchemeStopsTheStart() {
        assertThatThrownBy(() -> NotificationWriter.checkUrl(PROPERTY, "ftp://hooks.example.com/in"))
                .hasMessage(PROPERTY + " must be an http or https URL");
        assertThatThrownBy(() -> NotificationWriter.checkUrl(PROPERTY, "https:///in")).hasMessageContaining(PROPERTY);
    }
}
