package dev.ingestor.source.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import dev.ingestor.support.ChildJvm;
import dev.ingestor.web.ApiProblemException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The streaming reader of item batches: the same fingerprint as the whole-tree canonical form, and its limits. */
class ItemBatchReaderTest {

    private static final String PREFIX = "POST /api/v1/partners/ACME/items mode=sync";

    @TempDir
    Path spool;

    private ItemBatchReader.Batch read(String body, int maxItems, long maxRecordSize) throws Exception {
        return new ItemBatchReader(maxItems, maxRecordSize, spool)
                .read(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)), PREFIX);
    }

    /**
     * Batches whose items hold field names of their own, 40,000 characters each, one after another through one
     * reader, in a JVM of 128 MB of heap: a reader that kept a body's names after reading it (Jackson keeps the names
     * its parsers read in a table of their factory's, up to 6,000 of them) ran out of memory by the twentieth.
     */
    // slow tier: a JVM of its own, 180 MB of bodies
    @dev.ingestor.support.SlowTest
    @Test
    void theNamesOfABatchAreNotKeptAfterItWasRead() throws Exception {
        ChildJvm.Run child = ChildJvm.of(ManyNamedBatches.class).options("-Xmx128m").arguments("30")
                .run(Duration.ofMinutes(2));
        assertThat(child.ended()).isTrue();
        assertThat(child.exitCode()).as(child.output()).isZero();
        assertThat(child.output()).contains(ManyNamedBatches.READ_THEM_ALL);
    }

    /** Stored keys of requests made before the streaming reader must still match their retries. */
    @Test
    void theFingerprintIsTheOneOfTheWholeCanonicalBody() throws Exception {
        List<String> bodies = List.of(
                "{\"items\": [{\"b\": 1, \"a\": \"x\"}, {}]}",
                "{ \"z\": [3, {\"y\": 1.50, \"x\": null}], \"items\": [ {\"q\": \"\\u00e9\\n\\\"\\u0000\"}, 7, \"s\", null ], \"a\": true }",
                "{\"a\": {\"c\": 1, \"b\": 2}, \"items\": [{\"n\": 1e3, \"m\": -0.0, \"k\": 12345678901234567890}], \"itemz\": 1, \"item\": 2}",
                "{\"\u00e9\": 1, \"items\": [{\"\u65e5\u672c\": \"\ud83d\ude00\", \"A\": [ ], \"a\": { }}]}");
        for (String body : bodies) {
            ItemBatchReader.Batch batch = read(body, 100, 10_000);
            assertThat(batch.fingerprint()).as(body)
                    .isEqualTo(CanonicalJson.fingerprint(PREFIX,
                            CanonicalJson.parse(body.getBytes(StandardCharsets.UTF_8))));
        }
    }

    /** Jackson refuses such a number with no JSON error of its own: a 400 naming the item, never a 500. */
    @Test
    void aNumberPastABigDecimalsRangeIsA400NamingItsItem() {
        assertThatThrownBy(() -> read("{\"items\": [{\"a\": 1}, {\"x\": 1e-2147483648}]}", 100, 10_000))
                .isInstanceOfSatisfying(ApiProblemException.class, e -> assertThat(e.problem().status()).isEqualTo(400))
                .hasMessageContaining("item 2 is not readable").hasMessageContaining("out of range");
    }

    /**
     * A name within the record limit but over 50,000 characters, the most every reader of an item's record takes
     * (Jackson's own limit): a 400 naming that limit, not the record limit it is within.
     */
    @Test
    void aNameOverFiftyThousandCharactersIsA400NamingThatLimit() throws Exception {
        String name = "n".repeat(50_001);
        assertThatThrownBy(() -> read("{\"items\": [{\"" + name + "\": 1}]}", 100, 65_536))
                .isInstanceOfSatisfying(ApiProblemException.class, e -> assertThat(e.problem().status()).isEqualTo(400))
                .hasMessageContaining("item 1 has a field name longer than 50000 characters");
        assertThatThrownBy(() -> read("{\"" + name + "\": 1, \"items\": []}", 100, 65_536))
                .hasMessageContaining("a field name longer than 50000 characters");
        ItemBatchReader.Batch batch = read("{\"items\": [{\"" + "n".repeat(50_000) + "\": 1}]}", 100, 65_536);
        assertThat(batch.count()).isEqualTo(1);
    }

    @Test
    void itemsBecomeCanonicalJsonLinesOnePerItem() throws Exception {
        ItemBatchReader.Batch batch = read("{\"items\": [ {\"b\": 1,  \"a\": 2}, {\"c\": {\"z\": 1, \"y\": 2}} ]}", 100,
                10_000);
        assertThat(batch.count()).isEqualTo(2);
        assertThat(Files.readString(batch.jsonLines())).isEqualTo("{\"a\":2,\"b\":1}\n{\"c\":{\"y\":2,\"z\":1}}\n");
    }

    @Test
    void moreItemsThanTheCapAre413AndReadingStops() {
        StringBuilder body = new StringBuilder("{\"items\": [");
        for (int i = 0; i < 11; i++) {
            body.append(i == 0 ? "" : ",").append("{}");
        }
        body.append(", this is never parsed ]}");
        assertThatThrownBy(() -> read(body.toString(), 10, 1000))
                .isInstanceOfSatisfying(ApiProblemException.class, e -> {
                    assertThat(e.problem().status()).isEqualTo(413);
                    assertThat(e.problem().detail()).contains("more than 10 items")
                            .contains("ingestor.http.max-items-per-batch");
                });
        assertThat(spool).isEmptyDirectory();
    }

    @Test
    void aRecordOverTheSizeLimitIs400NamingTheItem() {
        String body = "{\"items\": [{\"a\": 1}, {\"a\": \"" + "x".repeat(200) + "\"}]}";
        assertThatThrownBy(() -> read(body, 10, 100))
                .isInstanceOfSatisfying(ApiProblemException.class, e -> {
                    assertThat(e.problem().status()).isEqualTo(400);
                    assertThat(e.problem().detail())
                            .contains("item 2 is larger than the limit of 100 bytes (ingestor.http.max-record-size)");
                });
        assertThat(spool).isEmptyDirectory();
    }

    /** One item of a million small fields: refused once the limit is passed, not after building its tree. */
    @Test
    void aHugeItemIsRefusedHavingReadLittleMoreThanTheLimit() {
        StringBuilder body = new StringBuilder("{\"items\": [{\"a\": 1}, {");
        for (int i = 0; i < 200_000; i++) {
            body.append(i == 0 ? "" : ",").append("\"f").append(i).append("\":0");
        }
        body.append("}]}");
        CountingStream in = new CountingStream(body.toString().getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> new ItemBatchReader(10, 1000, spool).read(in, PREFIX))
                .isInstanceOfSatisfying(ApiProblemException.class, e -> {
                    assertThat(e.problem().status()).isEqualTo(400);
                    assertThat(e.problem().detail())
                            .contains("item 2 is larger than the limit of 1000 bytes (ingestor.http.max-record-size)");
                });
        // the parser reads ahead one buffer (8 KB); the body is over 2 MB
        assertThat(in.read).isLessThan(1000 + 32 * 1024);
        assertThat(spool).isEmptyDirectory();
    }

    /** The fields besides "items" are held until the end of the body, so together they get one record's allowance. */
    @Test
    void manyOtherTopLevelFieldsAreRefusedHavingReadLittleMoreThanTheLimit() {
        StringBuilder body = new StringBuilder("{\"items\": [{\"a\": 1}]");
        for (int i = 0; i < 200_000; i++) {
            body.append(",\"f").append(i).append("\":0");
        }
        body.append("}");
        CountingStream in = new CountingStream(body.toString().getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> new ItemBatchReader(10, 1000, spool).read(in, PREFIX))
                .isInstanceOfSatisfying(ApiProblemException.class, e -> {
                    assertThat(e.problem().status()).isEqualTo(400);
                    assertThat(e.problem().detail()).contains("the fields besides \"items\" are larger than the limit"
                            + " of 1000 bytes (ingestor.http.max-record-size)");
                });
        assertThat(in.read).isLessThan(1000 + 32 * 1024);
        String big = "{\"items\": [{}], \"note\": \"" + "x".repeat(2000) + "\"}";
        assertThatThrownBy(() -> read(big, 10, 1000)).isInstanceOfSatisfying(ApiProblemException.class,
                e -> assertThat(e.problem().detail()).contains("ingestor.http.max-record-size"));
        assertThat(spool).isEmptyDirectory();
    }

    @Test
    void itemsAndOtherFieldsUnderTheLimitAreTakenWithUnpairedSurrogatesKept() throws Exception {
        String body = "{\"meta\": {\"b\": 2, \"a\": 1}, \"items\": [{\"s\": \"x\\ud800y\", \"n\": 1.50}]}";
        ItemBatchReader.Batch batch = read(body, 10, 1000);
        assertThat(batch.count()).isEqualTo(1);
        assertThat(CanonicalJson.parse(Files.readAllBytes(batch.jsonLines())).get("s").asString())
                .isEqualTo("x\ud800y");
        assertThat(batch.fingerprint())
                .isEqualTo(
                        CanonicalJson.fingerprint(PREFIX, CanonicalJson.parse(body.getBytes(StandardCharsets.UTF_8))));
    }

    /** One string of 10 MB: refused while Jackson reads it, not after it has been read, copied and counted. */
    @Test
    void aHugeStringOrNameIsRefusedHavingReadLittleMoreThanTheLimit() {
        String huge = "x".repeat(10 * 1024 * 1024);
        for (String body : List.of("{\"items\": [{\"a\": 1}, {\"note\": \"" + huge + "\"}]}",
                "{\"items\": [\"" + huge + "\"]}", "{\"items\": [{\"" + huge + "\": 1}]}",
                "{\"items\": [{}], \"note\": \"" + huge + "\"}", "{\"" + huge + "\": 1, \"items\": [{}]}")) {
            CountingStream in = new CountingStream(body.getBytes(StandardCharsets.UTF_8));
            assertThatThrownBy(() -> new ItemBatchReader(10, 1000, spool).read(in, PREFIX)).as(body.substring(0, 30))
                    .isInstanceOfSatisfying(ApiProblemException.class, e -> {
                        assertThat(e.problem().status()).isEqualTo(400);
                        assertThat(e.problem().detail()).contains("larger than the limit of 1000 bytes"
                                + " (ingestor.http.max-record-size)");
                    });
            // Jackson checks a string's length as its buffer grows, in segments of up to 64K characters
            assertThat(in.read).as(body.substring(0, 30)).isLessThan(1000 + 256 * 1024);
        }
        assertThat(spool).isEmptyDirectory();
    }

    /** JSON between systems is UTF-8: another encoding is a 400, never a retry, and never outside the size limits. */
    @Test
    void aBodyInUtf16OrUtf32Is400AndAUtf8ByteOrderMarkIsTaken() throws Exception {
        String body = "{\"items\": [{\"a\": \"" + "x".repeat(200) + "\"}]}";
        byte[] utf32 = body.getBytes("UTF-32BE");
        byte[] utf32OneByteTooMany = java.util.Arrays.copyOf(utf32, utf32.length + 1);
        for (byte[] bytes : List.of(body.getBytes(StandardCharsets.UTF_16LE), body.getBytes(StandardCharsets.UTF_16BE),
                body.getBytes(StandardCharsets.UTF_16), utf32, utf32OneByteTooMany, body.getBytes("UTF-32LE"),
                new byte[] {'{', 0})) {
            assertThatThrownBy(() -> new ItemBatchReader(10, 1000, spool).read(new ByteArrayInputStream(bytes), PREFIX))
                    .isInstanceOfSatisfying(ApiProblemException.class, e -> {
                        assertThat(e.problem().status()).isEqualTo(400);
                        assertThat(e.problem().detail()).contains("not UTF-8").contains("RFC 8259");
                    });
        }
        byte[] marked = ("\ufeff" + body).getBytes(StandardCharsets.UTF_8);
        ItemBatchReader.Batch batch = new ItemBatchReader(10, 1000, spool).read(new ByteArrayInputStream(marked),
                PREFIX);
        assertThat(batch.fingerprint())
                .isEqualTo(
                        CanonicalJson.fingerprint(PREFIX, CanonicalJson.parse(body.getBytes(StandardCharsets.UTF_8))));
        Files.delete(batch.jsonLines());
        assertThat(spool).isEmptyDirectory();
    }

    private static final class CountingStream extends java.io.InputStream {
        private final byte[] bytes;
        int read;

        CountingStream(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public int read() {
            return read < bytes.length ? bytes[read++] & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (read >= bytes.length) {
                return -1;
            }
            int n = Math.min(len, bytes.length - read);
            System.arraycopy(bytes, read, b, off, n);
            read += n;
            return n;
        }
    }

    @Test
    void bodiesThatAreNoBatchAre400() {
        for (String body : List.of("", "[1]", "{\"items\": 3}", "{\"rows\": []}", "{\"items\": []}",
                "{\"items\": [{}]} x",
                "{\"items\": [{}], \"items\": [{}]}", "{\"items\": [{]}")) {
            assertThatThrownBy(() -> read(body, 10, 1000)).as(body)
                    .isInstanceOfSatisfying(ApiProblemException.class,
                            e -> assertThat(e.problem().status()).isEqualTo(400));
        }
        assertThat(spool).isEmptyDirectory();
    }

    @Test
    void theFingerprintNameStaysWhatStoredKeysWereTakenUnder() {
        // request keys stored by earlier versions (kept 30 days) replay to their retries only while this holds,
        // whichever path, /suppliers/ or /partners/, the retry comes by
        assertThat(ItemBatchApi.fingerprintName("ACME", false)).isEqualTo(PREFIX);
        assertThat(ItemBatchApi.fingerprintName("ACME", true)).isEqualTo("POST /api/v1/partners/ACME/items mode=bulk");
    }
}
