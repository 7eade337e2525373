package dev.ingestor.config;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code ingestor.*} itself: the folders, the instance's name and the suppliers, which every stage reads. Each
 * stage's own settings are a class of that stage's package under a prefix of its own ({@code ingestor.intake.*}:
 * {@code dev.ingestor.intake.IntakeSettings}, and so on; docs/configuration.md lists them all). Each default is
 * the initial value of its field here or there, and nowhere else.
 */
@org.springframework.validation.annotation.Validated
@ConfigurationProperties(prefix = "ingestor")
public class IngestorProperties {

    /** Where raw files ({@code raw/}), the embedded database ({@code postgres/}) and other state live. */
    private Path dataDir = Path.of("data");
    /** The file-drop inbox: one sub-folder per supplier code. */
    private Path inboxDir = Path.of("inbox");
    /**
     * Content-addressed raw files. Several instances must share it (a shared volume): any instance may
     * validate and process a file another instance took in. Empty: {@code <data-dir>/raw}.
     */
    private Path rawDir;
    /**
     * Folder the YAML routes are read from at start. Unset, the default folder is used when it holds routes, else the
     * copy in the jar; set, it must hold routes or the start fails, naming it.
     */
    private Path routesDir = Path.of("routes");
    /**
     * true: changes to the route files under {@code routes-dir} (and its {@code suppliers/}) are loaded while the
     * app runs (Camel's route reload; docs/suppliers.md, Reloading routes while the app runs); a file that does not
     * load is logged and the running routes stay.
     */
    private boolean routesReload = false;
    /**
     * Names this instance in claims, logs and content_key.created_by; several instances may share one database,
     * each with an id of its own (two running instances must never share one: leases, claims and wakeups tell
     * instances apart by it). Empty: host, pid and a random suffix.
     */
    private String instanceId;
    /** The suppliers by code; each gets a folder under the inbox and, with a host, an SFTP route. */
    private final Map<String, @jakarta.validation.Valid SupplierProperties> suppliers = new LinkedHashMap<>();

    public Path getDataDir() { return dataDir; }
    public void setDataDir(Path dataDir) { this.dataDir = dataDir; }
    public Path getInboxDir() { return inboxDir; }
    public void setInboxDir(Path inboxDir) { this.inboxDir = inboxDir; }
    public boolean isRoutesReload() { return routesReload; }
    public void setRoutesReload(boolean routesReload) { this.routesReload = routesReload; }
    public Path getRoutesDir() { return routesDir; }
    public void setRoutesDir(Path routesDir) { this.routesDir = routesDir; }
    public String getInstanceId() { return instanceId; }
    public void setInstanceId(String instanceId) { this.instanceId = instanceId; }
    public Map<String, SupplierProperties> getSuppliers() { return suppliers; }

    public Path rawDir() { return rawDir != null && !rawDir.toString().isBlank() ? rawDir : dataDir.resolve("raw"); }
    public Path getRawDir() { return rawDir; }
    public void setRawDir(Path rawDir) { this.rawDir = rawDir; }
}
