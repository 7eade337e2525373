package dev.ingestor.intake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ingestor.job.ContentKey;
import org.junit.jupiter.api.Test;

class ContentKeyTest {

    private static final String SHA = "a3f8c2" + "0".repeat(54) + "d91b";

    @Test
    void theKeyIsSupplierColonSha256() {
        assertThat(new ContentKey("ACME", SHA)).hasToString("ACME:" + SHA);
        assertThat(ContentKey.parse("ACME:" + SHA)).isEqualTo(new ContentKey("ACME", SHA));
    }

    @Test
    void twoSuppliersWithTheSameBytesHaveDifferentKeys() {
        assertThat(new ContentKey("ACME", SHA)).isNotEqualTo(new ContentKey("GLOBEX", SHA));
    }

    @Test
    void malformedKeysAreRefusedWithTheReason() {
        assertThatThrownBy(() -> ContentKey.parse("ACME")).hasMessageContaining("supplier:sha256");
        assertThatThrownBy(() -> ContentKey.parse("ACME:xyz")).hasMessageContaining("64 lower-case hex");
        assertThatThrownBy(() -> new ContentKey(" ", SHA)).hasMessageContaining("supplier code");
        assertThatThrownBy(() -> new ContentKey("ACME", SHA.toUpperCase())).hasMessageContaining("hex");
    }
}
