package dev.ingestor.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipException;

import org.junit.jupiter.api.Test;

/** Every member of a gzip body decoded, whatever its header holds, and nothing else taken for gzip. */
class GzipBodyTest {

    @Test
    void severalMembersOfAnySizeDecodeToTheirContentsInOrder() throws IOException {
        byte[] large = new byte[300_000];
        new Random(7).nextBytes(large);
        byte[] small = "a,b\n".getBytes(StandardCharsets.UTF_8);
        byte[] body = concat(gzip(small), gzip(new byte[0]), gzip(large), gzip(small));
        assertThat(decode(body)).isEqualTo(concat(small, large, small));
    }

    /** A file name, comment, extra field and header checksum, as gzip(1) and other tools write them. */
    @Test
    void everyOptionalHeaderFieldIsReadPast() throws IOException {
        byte[] content = "source_id,sku\nA-1,S\n".getBytes(StandardCharsets.UTF_8);
        byte[] member = gzip(content);
        ByteArrayOutputStream withFields = new ByteArrayOutputStream();
        withFields.write(member, 0, 3);
        withFields.write(0x02 | 0x04 | 0x08 | 0x10);
        withFields.write(member, 4, 6);
        // an extra field of one subfield (RFC 1952 2.3.1.1): its id AB, 3 bytes of data
        withFields.write(new byte[] {7, 0, 'A', 'B', 3, 0, 'x', 'y', 'z'});
        withFields.write("advice.csv\0".getBytes(StandardCharsets.ISO_8859_1));
        withFields.write("a comment\0".getBytes(StandardCharsets.ISO_8859_1));
        withFields.write(new byte[] {0, 0});
        withFields.write(member, 10, member.length - 10);
        assertThat(decode(concat(withFields.toByteArray(), member))).isEqualTo(concat(content, content));
    }

    @Test
    void whatIsNotGzipIsRefused() {
        byte[] member = gzip("a\n".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> decode(new byte[0])).isInstanceOf(ZipException.class);
        assertThatThrownBy(() -> decode("a,b\n".getBytes(StandardCharsets.UTF_8))).isInstanceOf(ZipException.class);
        assertThatThrownBy(() -> decode(concat(member, new byte[] {0x1f}))).isInstanceOf(ZipException.class);
        assertThatThrownBy(() -> decode(concat(member, new byte[] {'x', 'y', 'z'})))
                .isInstanceOf(ZipException.class).hasMessageContaining("after a valid .gz stream");
        assertThatThrownBy(() -> decode(Arrays.copyOf(member, member.length - 1))).isInstanceOf(EOFException.class);
        byte[] badCrc = member.clone();
        badCrc[badCrc.length - 8] ^= 1;
        assertThatThrownBy(() -> decode(badCrc)).isInstanceOf(ZipException.class).hasMessageContaining("CRC32");
    }

    /**
     * A header's file name is read to its NUL, and kept in memory while it is: a name as long as the body is refused
     * once the header is past its limit, not read whole.
     */
    @Test
    void aHeaderPastItsLimitIsRefusedBeforeItIsReadWhole() throws IOException {
        byte[] member = gzip("a,b\n".getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream start = new ByteArrayOutputStream();
        start.write(member, 0, 3);
        start.write(0x08);
        start.write(member, 4, 6);
        byte[] header = start.toByteArray();
        byte[] rest = Arrays.copyOfRange(member, 10, member.length);
        long nameLength = 64L * 1024 * 1024;
        long[] read = new long[1];
        InputStream body = new InputStream() {
            @Override
            public int read() {
                long at = read[0]++;
                if (at < header.length) {
                    return header[(int) at] & 0xff;
                }
                at -= header.length;
                if (at < nameLength) {
                    return 'n';
                }
                at -= nameLength;
                if (at == 0) {
                    return 0;
                }
                return at - 1 < rest.length ? rest[(int) (at - 1)] & 0xff : -1;
            }
        };
        assertThatThrownBy(() -> new GzipBody(body).readAllBytes()).isInstanceOf(ZipException.class)
                .hasMessageContaining("header");
        assertThat(read[0]).as("bytes of the body read").isLessThan(2L * GzipBody.MAX_HEADER);
        byte[] named = concat(header, "n".repeat(GzipBody.MAX_HEADER / 2).getBytes(StandardCharsets.ISO_8859_1),
                new byte[] {0}, rest);
        assertThat(decode(concat(named, named))).asString().isEqualTo("a,b\na,b\n");
    }

    /** A failure to read the body is the body's, not malformed gzip. */
    @Test
    void aFailureToReadTheBodyIsPassedOnAsItIs() {
        IOException gone = new IOException("connection reset");
        InputStream failing = new InputStream() {
            @Override
            public int read() throws IOException {
                throw gone;
            }
        };
        assertThatThrownBy(() -> new GzipBody(failing).readAllBytes()).isSameAs(gone);
    }

    private static byte[] decode(byte[] body) throws IOException {
        try (InputStream in = new GzipBody(new ByteArrayInputStream(body))) {
            return in.readAllBytes();
        }
    }

    private static byte[] gzip(byte[] plain) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(plain);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return out.toByteArray();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }
}
