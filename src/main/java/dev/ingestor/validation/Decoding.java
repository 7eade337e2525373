package dev.ingestor.validation;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;

import org.apache.commons.io.ByteOrderMark;
import org.apache.commons.io.input.BOMInputStream;

/**
 * The text of a supplier's file: readers that fail on bytes that are not text in the expected charset instead of
 * inventing characters, naming their line ({@link LineCountingDecoder}), and that read past a byte-order mark.
 * Spreadsheets start their UTF-8 and UTF-16 exports with one; a mark names its encoding beyond doubt, so a file that
 * starts with one is read in that encoding whatever the supplier's charset says, and the mark is no part of the first
 * value.
 */
final class Decoding {

    private Decoding() {
    }

    static Reader strict(InputStream in, Charset charset) throws IOException {
        BOMInputStream text = BOMInputStream.builder().setInputStream(in)
                .setByteOrderMarks(ByteOrderMark.UTF_8, ByteOrderMark.UTF_16LE, ByteOrderMark.UTF_16BE)
                .setInclude(false).get();
        String marked = text.getBOMCharsetName();
        Charset encoding = marked == null ? charset : Charset.forName(marked);
        return new LineCountingDecoder(text, encoding.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT));
    }
}
