package dev.ingestor.security;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * HTTP/1.1 over a plain socket, for what an HTTP client library will not do: declare a body and send only
 * part of it, hold a request open, or connect from another loopback address.
 */
final class RawHttp implements AutoCloseable {

    private final Socket socket = new Socket();

    RawHttp(InetAddress from, int port, Duration timeout) throws IOException {
        if (from != null) {
            socket.bind(new InetSocketAddress(from, 0));
        }
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
        socket.setSoTimeout((int) timeout.toMillis());
    }

    /** Sends the request line and headers (CRLF-separated, without the blank line) and the first bytes of a body. */
    RawHttp send(String head, byte[] bodyStart) throws IOException {
        socket.getOutputStream().write((head + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().write(bodyStart);
        socket.getOutputStream().flush();
        return this;
    }

    /** The answer's status line and headers, and its body when it declares a length. */
    String readAnswer() throws IOException {
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.write(b);
        }
        String headers = head.toString(StandardCharsets.ISO_8859_1);
        int length = 0;
        for (String line : headers.split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        if (headers.toLowerCase().contains("transfer-encoding: chunked")) {
            return headers + readChunks(in);
        }
        byte[] body = in.readNBytes(length);
        return headers + new String(body, StandardCharsets.UTF_8);
    }

    private static String readChunks(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            StringBuilder size = new StringBuilder();
            for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
                size.append((char) b);
            }
            int length = Integer.parseInt(size.toString().trim().split(";")[0], 16);
            if (length == 0) {
                return body.toString(StandardCharsets.UTF_8);
            }
            body.write(in.readNBytes(length));
            in.readNBytes(2);
        }
    }

    /**
     * Whether the server ends the connection (end of stream, or a reset when it closed with bytes of ours unread)
     * before a read waits out this socket's timeout, while this side sends nothing more. What still comes is read
     * past: an answer without a length or chunks ends with the connection.
     */
    boolean closedByServer() throws IOException {
        try {
            while (socket.getInputStream().read() >= 0) {
                // the rest of an answer delimited by the end of the connection
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
