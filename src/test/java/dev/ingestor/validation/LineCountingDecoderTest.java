package dev.ingestor.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/**
 * Bytes that are not text fail the read after the text before them was read, naming their own line: never a block
 * of text earlier, where the parser above stood.
 */
class LineCountingDecoderTest {

    private static Reader decoder(byte[] bytes) {
        return new LineCountingDecoder(new ByteArrayInputStream(bytes), StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT));
    }

    private static byte[] bytes(Object... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object part : parts) {
            if (part instanceof String text) {
                out.writeBytes(text.getBytes(StandardCharsets.UTF_8));
            } else {
                out.write((Integer) part);
            }
        }
        return out.toByteArray();
    }

    @Test
    void theTextBeforeTheBytesIsReadThenTheirLineIsNamed() throws IOException {
        Reader text = decoder(bytes("a\r\nb\rc\nd", 0xFF, "e\n"));
        char[] read = new char[64];
        assertThat(new String(read, 0, text.read(read, 0, 64))).isEqualTo("a\r\nb\rc\nd");
        // \r\n is one line break, \r alone one
        assertThatThrownBy(() -> text.read(read, 0, 64)).isInstanceOf(LineCountingDecoder.NotText.class)
                .hasMessage("line 4: byte FF is not UTF-8");
        assertThatThrownBy(() -> text.read(read, 0, 64)).hasMessage("line 4: byte FF is not UTF-8");
    }

    /** A pair of surrogates read one character at a time, and a sequence the file ends inside. */
    @Test
    void oneCharacterAtATimeAndATruncatedSequence() throws IOException {
        Reader text = decoder(bytes("\uD83D\uDE00\n", 0xE2, 0x82));
        assertThat(text.read()).isEqualTo(0xD83D);
        assertThat(text.read()).isEqualTo(0xDE00);
        assertThat(text.read()).isEqualTo('\n');
        assertThatThrownBy(text::read).hasMessage("line 2: bytes E2 82 are not UTF-8");
        assertThat(decoder(bytes("ok")).read(new char[8], 0, 8)).isEqualTo(2);
    }

    /**
     * Through a BufferedReader, as the record readers read it, a bad byte thousands of lines and several blocks in:
     * every line before it is read, and it is named on its own line. A BufferedReader reads on while the reader
     * below says it is ready, and drops what it read when that read fails.
     */
    @Test
    void aBadByteDeepInAFileIsNamedOnItsLineAfterEveryLineBeforeIt() throws IOException {
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        for (int line = 1; line <= 5000; line++) {
            file.writeBytes(("P-" + line + ",SKU-" + line + ",1,2026-12-01").getBytes(StandardCharsets.UTF_8));
            if (line == 4000) {
                file.write(0xFF);
            }
            file.write('\n');
        }
        BufferedReader lines = new BufferedReader(decoder(file.toByteArray()), 64 * 1024);
        StringBuilder read = new StringBuilder();
        char[] block = new char[16 * 1024];
        assertThatThrownBy(() -> {
            for (int n; (n = lines.read(block, 0, block.length)) >= 0;) {
                read.append(block, 0, n);
            }
        }).hasMessage("line 4000: byte FF is not UTF-8");
        assertThat(read.toString()).endsWith("P-3999,SKU-3999,1,2026-12-01\nP-4000,SKU-4000,1,2026-12-01");
    }
}
