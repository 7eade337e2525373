package dev.ingestor.embedded;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;

import org.apache.kafka.common.utils.Exit;

/**
 * Run as a program: starts the embedded broker in the folder {@code args[0]}, calls Kafka's {@code Exit.halt} as the
 * broker does on a fatal fault, then waits for the broker's port to close and prints {@link #BROKER_GONE_JVM_ALIVE};
 * what it asked to run after the stop prints {@link #AFTER_THE_STOP}.
 */
final class FatalBrokerFault {

    static final String BROKER_GONE_JVM_ALIVE = "the broker has stopped and the JVM runs on";
    static final String AFTER_THE_STOP = "what the broker's starter asked for ran";

    private FatalBrokerFault() {
    }

    public static void main(String[] args) throws Exception {
        java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);
        EmbeddedKafkaServer broker = EmbeddedKafkaServer.start(Path.of(args[0]), 0, () -> {
            System.out.println(AFTER_THE_STOP);
            stopped.countDown();
        });
        int port = broker.ports().get(0);
        Exit.halt(1, "test: every log folder failed");
        if (!stopped.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
            System.out.println("the broker did not stop");
            System.exit(3);
        }
        long deadline = System.currentTimeMillis() + 60_000;
        while (listening(port)) {
            if (System.currentTimeMillis() > deadline) {
                System.out.println("the broker still listens");
                System.exit(2);
            }
            Thread.sleep(200);
        }
        System.out.println(BROKER_GONE_JVM_ALIVE);
        System.exit(0);
    }

    private static boolean listening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
