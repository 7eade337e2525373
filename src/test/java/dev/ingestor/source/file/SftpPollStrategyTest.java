package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SftpPollStrategyTest {

    @Test
    void theCauseIsDescribedWithItsChainAndNoPassword() {
        Exception cause = new IllegalStateException(
                "Cannot connect to sftp://acme@host:22/outbox?password=hunter2&username=acme",
                new java.net.ConnectException("Connection refused"));
        String text = SftpPollStrategy.describe(cause);
        assertThat(text).contains("IllegalStateException").contains("ConnectException: Connection refused")
                .doesNotContain("hunter2");
    }
}
