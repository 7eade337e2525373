package dev.ingestor.validation;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.NoSuchElementException;

import dev.ingestor.config.JsonNesting;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The records of an HTTP item batch as it was stored: one item per line, each the canonical JSON the batch's reader
 * wrote, each already checked against the HTTP limits when the batch was received. An item is the record itself:
 * no supplier mapping, hook or file limit applies to it, and an item that is not an object is that one record,
 * quarantined, never the whole batch. The batch applied while its caller waits and the batch the stages take (bulk
 * mode, a reprocess) are read through this one reader, so the same items give the same outcomes either way.
 */
public final class ItemLines implements RecordReader {

    /**
     * Decimals as written (the canonical lines keep them so): a float read as a double would change them. A number's
     * canonical form may be longer than the text intake took ({@code 1000 digits e5} is {@code d.ddd...E+1004}): the
     * limit on a number's length leaves room for the exponent a canonical form adds.
     */
    private static final ObjectMapper JSON = JsonMapper.builder(JsonNesting.textBuilder()
            .streamReadConstraints(JsonNesting.READ.rebuild()
                    .maxNumberLength(JsonNesting.READ.getMaxNumberLength() + 32).build())
            .streamWriteConstraints(JsonNesting.WRITE).build())
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

    private final BufferedReader lines;
    private String next;
    private long index;

    private ItemLines(BufferedReader lines) {
        this.lines = lines;
    }

    /** The items of the stored file {@code in}, UTF-8 as the batch's reader wrote it; closing the reader closes it. */
    public static ItemLines open(InputStream in) {
        return new ItemLines(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8),
                ReadBuffers.size(in)));
    }

    /** The items of lines already open; closing the reader closes them. */
    public static ItemLines of(BufferedReader lines) {
        return new ItemLines(lines);
    }

    @Override
    public boolean hasNext() {
        if (next == null) {
            try {
                next = lines.readLine();
            } catch (IOException e) {
                throw new UncheckedIOException("the items file of the batch cannot be read", e);
            }
        }
        return next != null;
    }

    @Override
    public RawRecord next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        String line = next;
        next = null;
        index++;
        try {
            // an item has no line of a file: it is named by its position in the batch
            return RawRecord.ofJson(JSON.readTree(line), index, -1);
        } catch (JacksonException e) {
            // the batch's reader wrote the line; one that does not parse is a stored file damaged since
            throw new UnreadableFileException("item " + index + " of the stored batch is not JSON: "
                    + e.getOriginalMessage());
        }
    }

    @Override
    public void close() {
        try {
            lines.close();
        } catch (IOException e) {
            // nothing was written through it
        }
    }
}
