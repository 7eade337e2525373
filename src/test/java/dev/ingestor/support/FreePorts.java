package dev.ingestor.support;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A free port for a server a test starts itself and must know before it listens. Taken below the system's
 * ephemeral range: a port found free with {@code new ServerSocket(0)} is ephemeral, and the OS may hand it again to
 * any socket bound to port 0 meanwhile (the embedded Kafka broker took one, and the start failed "already in use").
 */
public final class FreePorts {

    private FreePorts() {
    }

    public static int outsideTheEphemeralRange() throws IOException {
        int below = ephemeralLowBound();
        int from = 10_000;
        int start = from + ThreadLocalRandom.current().nextInt(below - from);
        for (int i = 0; i < below - from; i++) {
            int port = from + (start - from + i) % (below - from);
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return socket.getLocalPort();
            } catch (IOException taken) {
                // the next one
            }
        }
        throw new IOException("no free port between " + from + " and " + below);
    }

    private static int ephemeralLowBound() {
        try {
            // read as lines: a /proc file says it is empty, and a read sized by that gets its first character only
            String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0);
            int low = Integer.parseInt(range.trim().split("\\s+")[0]);
            return low > 10_001 ? low : 32_768;
        } catch (IOException | RuntimeException e) {
            return 32_768; // Linux's default, and below the IANA range other systems use
        }
    }
}
