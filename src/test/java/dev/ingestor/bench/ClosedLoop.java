package dev.ingestor.bench;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongFunction;

/**
 * The benchmarks' HTTP load: {@code threads} clients, each sending request {@code i} (a shared counter) and
 * waiting for its answer before the next, until {@code seconds} are up (a closed loop: the server's pace sets the
 * rate). Answers other than 2xx are counted and the first three handed to {@code odd}.
 */
final class ClosedLoop {

    /** What one run saw: every call's latency in nanoseconds (unsorted), the seconds it ran, the non-2xx answers. */
    record Run(long[] nanos, double seconds, long errors) {

        double rate() {
            return nanos.length / seconds;
        }
    }

    private ClosedLoop() {
    }

    static Run run(HttpClient client, int threads, int seconds, LongFunction<HttpRequest> requests,
            Consumer<HttpResponse<String>> odd) throws Exception {
        AtomicLong counter = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        long start = System.nanoTime();
        long end = start + seconds * 1_000_000_000L;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<long[]>> latencies = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                latencies.add(pool.submit(() -> {
                    long[] mine = new long[1024];
                    int n = 0;
                    while (System.nanoTime() < end) {
                        HttpRequest request = requests.apply(counter.getAndIncrement());
                        long sent = System.nanoTime();
                        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
                        if (response.statusCode() / 100 != 2 && errors.incrementAndGet() <= 3) {
                            odd.accept(response);
                        }
                        if (n == mine.length) {
                            mine = Arrays.copyOf(mine, n * 2);
                        }
                        mine[n++] = System.nanoTime() - sent;
                    }
                    return Arrays.copyOf(mine, n);
                }));
            }
            long[] all = new long[0];
            for (Future<long[]> f : latencies) {
                long[] mine = f.get();
                int from = all.length;
                all = Arrays.copyOf(all, from + mine.length);
                System.arraycopy(mine, 0, all, from, mine.length);
            }
            return new Run(all, (System.nanoTime() - start) / 1e9, errors.get());
        } finally {
            pool.shutdownNow();
        }
    }
}
