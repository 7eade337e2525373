package dev.ingestor.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A real HTTP webhook receiver (the JDK's server on a random port): keeps every request it gets and answers
 * each path with the statuses it was told, 200 once they are used up. One for the whole test run, configured in
 * every test context alike, as every instance of an installation has the same webhook: contexts share the
 * database, so any of them may write or send a notification.
 */
public final class WebhookReceiver {

    /** One request as it came, {@code nanos} the System.nanoTime of its arrival. */
    public record Received(String path, String eventId, String eventType, String contentType, String signature,
            byte[] body,
            long nanos) {
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final HttpServer server;
    private final Queue<Received> received = new ConcurrentLinkedQueue<>();
    private final Map<String, ConcurrentLinkedDeque<Integer>> statuses = new ConcurrentHashMap<>();

    WebhookReceiver() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", this::handle);
        // a thread per request, so one slow answer does not hold back the others (as a real receiver's server)
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool(r -> {
            Thread thread = new Thread(r, "webhook-receiver");
            thread.setDaemon(true);
            return thread;
        }));
        server.start();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    /** The next requests to {@code path} are answered with these statuses, in order. */
    public void answer(String path, Integer... codes) {
        statuses.computeIfAbsent(path, p -> new ConcurrentLinkedDeque<>()).addAll(List.of(codes));
    }

    /**
     * Planned as a status: the answer's headers come at once and promise a large body, which then trickles, one
     * byte every half second, for as long as the caller listens (at most a minute).
     */
    public static final int TRICKLE = -1;

    /** Planned as a status: the answer, 200, comes after {@link #SLOW_SECONDS}, longer than any test's timeouts. */
    public static final int SLOW = -2;
    public static final int SLOW_SECONDS = 30;

    public void reset() {
        received.clear();
        statuses.clear();
    }

    public List<Received> received(String path, String type) {
        return received.stream().filter(r -> r.path().equals(path) && r.eventType().equals(type)).toList();
    }

    public List<Received> received(String path) {
        return received.stream().filter(r -> r.path().equals(path)).toList();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            String path = exchange.getRequestURI().getPath();
            received.add(new Received(path, exchange.getRequestHeaders().getFirst("X-Ingestor-Event-Id"),
                    String.valueOf(exchange.getRequestHeaders().getFirst("X-Ingestor-Event-Type")),
                    exchange.getRequestHeaders().getFirst("Content-Type"),
                    exchange.getRequestHeaders().getFirst("X-Ingestor-Signature"), body, System.nanoTime()));
            ConcurrentLinkedDeque<Integer> planned = statuses.get(path);
            Integer status = planned == null ? null : planned.poll();
            if (status != null && status == TRICKLE) {
                trickle(exchange);
                return;
            }
            if (status != null && status == SLOW) {
                answerLate(exchange);
                return;
            }
            exchange.sendResponseHeaders(status == null ? 200 : status, -1);
        }
    }

    private static void answerLate(HttpExchange exchange) throws IOException {
        try {
            Thread.sleep(java.util.concurrent.TimeUnit.SECONDS.toMillis(SLOW_SECONDS));
            exchange.sendResponseHeaders(200, -1);
        } catch (InterruptedException | IOException e) {
            // the caller hung up long ago: what a caller with a deadline does
        }
    }

    private static void trickle(HttpExchange exchange) throws IOException {
        exchange.sendResponseHeaders(200, 1_000_000);
        long until = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(1);
        try {
            while (System.nanoTime() < until) {
                exchange.getResponseBody().write('x');
                exchange.getResponseBody().flush();
                Thread.sleep(500);
            }
        } catch (IOException | InterruptedException e) {
            // the caller hung up: what a caller with a deadline does
        }
    }
}
