package dev.ingestor.source.file;

import static org.awaitility.Awaitility.await;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.camel.component.file.remote.RemoteFileOperations;
import org.junit.jupiter.api.Test;

/** The stall watchdog's one check, on plain objects: what it does when the JVM cannot give it a thread. */
class SftpStallWatchdogTest {

    /** Sessions disconnected, by the name of the transfer each was watched for. */
    private final Set<String> disconnected = ConcurrentHashMap.newKeySet();

    /** The operations of a transfer named {@code what}: a disconnect is noted, nothing else is done. */
    private RemoteFileOperations<?> operations(String what) {
        return (RemoteFileOperations<?>) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {RemoteFileOperations.class}, (proxy, method, args) -> {
                    if (method.getName().equals("forceDisconnect")) {
                        disconnected.add(what);
                    }
                    return method.getReturnType() == boolean.class ? false : null;
                });
    }

    /**
     * A stall whose disconnect gets no thread of its own (the process at its limit of threads) is still ended, by the
     * check itself, and the check goes on ending every later stall: an Error thrown on would end it for good.
     */
    @Test
    void aStallWhoseDisconnectGetsNoThreadIsEndedAndTheCheckGoesOn() {
        SftpSettings settings = new SftpSettings();
        settings.setStallTimeout(Duration.ofMillis(100));
        SftpStallWatchdog watchdog = new SftpStallWatchdog(settings);
        watchdog.disconnectThreads(task -> {
            throw new OutOfMemoryError("unable to create native thread: possibly out of memory or process/resource"
                    + " limits reached");
        });
        try {
            watchdog.watch("ACME", "first", operations("first"));
            await().atMost(Duration.ofSeconds(5)).until(() -> disconnected.contains("first"));
            watchdog.watch("ACME", "second", operations("second"));
            await().atMost(Duration.ofSeconds(5)).until(() -> disconnected.contains("second"));
        } finally {
            watchdog.destroy();
        }
    }
}
