package dev.ingestor.config;

import java.net.InetAddress;
import java.util.UUID;

import org.springframework.stereotype.Component;

/** Names this running instance in claims and logs: configured, or host, pid and a random suffix. */
@Component
public class InstanceId {

    private final String value;

    public InstanceId(IngestorProperties properties) {
        String configured = properties.getInstanceId();
        this.value = configured != null && !configured.isBlank() ? configured : generated();
    }

    public String value() {
        return value;
    }

    private static String generated() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            host = "host";
        }
        return host + "-" + ProcessHandle.current().pid() + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Override
    public String toString() {
        return value;
    }
}
