package dev.ingestor.validation;

import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;

/** Readers that fail on bytes that are not text in the expected charset instead of inventing characters. */
final class Decoding {

    private Decoding() {
    }

    static Reader strict(InputStream in, Charset charset) {
        return new InputStreamReader(in, charset.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT));
    }
}
