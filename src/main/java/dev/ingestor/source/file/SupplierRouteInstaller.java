package dev.ingestor.source.file;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.RoutesFromTemplates;
import dev.ingestor.config.SupplierProperties;
import dev.ingestor.intake.IntakeSettings;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.TemplatedRouteBuilder;
import org.apache.camel.spi.ThreadPoolProfile;
import org.apache.camel.util.concurrent.ThreadPoolRejectedPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Turns supplier configuration into routes: one route per supplier from the {@code file-drop} template in
 * {@code routes/source-file-drop.camel.yaml}. Adding a supplier is configuration only.
 */
@Component
public class SupplierRouteInstaller implements RoutesFromTemplates {

    private static final Logger LOG = LoggerFactory.getLogger(SupplierRouteInstaller.class);
    static final String FILE_DROP_TEMPLATE = "file-drop";
    static final String SFTP_TEMPLATE = "sftp-pull";
    /** As readLockIdempotentReleaseDelay in the file-drop template. */
    static final long CLAIM_RELEASE_DELAY_MILLIS = 2000;

    private final IngestorProperties properties;
    private final IntakeSettings intake;
    private final CamelContext camelContext;
    private final SftpLeadership leadership;
    /** The SFTP routes added, whose leases {@link #armLeases()} lets this instance take. */
    private final List<String> sftpRoutes = new ArrayList<>();

    public SupplierRouteInstaller(IngestorProperties properties, IntakeSettings intake, CamelContext camelContext,
            SftpLeadership leadership) {
        this.properties = properties;
        this.intake = intake;
        this.camelContext = camelContext;
        this.leadership = leadership;
    }

    @Override
    public String routes() {
        return "the supplier routes";
    }

    /**
     * The SFTP routes' leases may be taken from now on: each route's policy made its lease view as the context
     * initialised the route, and starts the route when its view gains the lease.
     */
    @EventListener(ApplicationReadyEvent.class)
    public void armLeases() {
        for (String routeId : sftpRoutes) {
            leadership.routeAdded(routeId);
        }
    }

    @Override
    public void install() throws Exception {
        refuseSharedSftpFolders();
        for (Map.Entry<String, SupplierProperties> supplier : properties.getSuppliers().entrySet()) {
            SupplierProperties.FileDrop drop = supplier.getValue().getFileDrop();
            if (drop.isEnabled()) {
                addFileDrop(camelContext, supplier.getKey(), drop);
            }
            SupplierProperties.Sftp sftp = supplier.getValue().getSftp();
            if (sftp.isEnabled()) {
                addSftp(camelContext, supplier.getKey(), sftp);
            }
        }
    }

    /**
     * Two suppliers polling one folder with one account would race for its files: each file a job of whichever
     * route took it first, and the two routes' claims on it one and the same (SftpClaimReadLock's key names the
     * account, the server and the folder, not the supplier). Refused at start, naming both.
     */
    private void refuseSharedSftpFolders() {
        Map<String, String> polledBy = new HashMap<>();
        for (Map.Entry<String, SupplierProperties> supplier : properties.getSuppliers().entrySet()) {
            SupplierProperties.Sftp sftp = supplier.getValue().getSftp();
            if (!sftp.isEnabled() || isBlank(sftp.getUsername())) {
                continue; // no route, or refused for its missing login (addSftp)
            }
            String folder = sftp.getUsername() + "@" + sftp.getHost().trim().toLowerCase(Locale.ROOT) + ":"
                    + sftp.getPort() + " " + withoutTrailingSlashes(nullToEmpty(sftp.getDirectory()).trim());
            String other = polledBy.putIfAbsent(folder, supplier.getKey());
            if (other != null) {
                throw new IllegalStateException("ingestor.suppliers." + other + ".sftp and ingestor.suppliers."
                        + supplier.getKey() + ".sftp poll the same folder (" + folder.replace(' ', '/')
                        + "): each file would go to whichever supplier's route took it first;"
                        + " give each supplier a folder or an account of its own");
            }
        }
    }

    private static String withoutTrailingSlashes(String directory) {
        String d = directory;
        while (d.length() > 1 && d.endsWith("/")) {
            d = d.substring(0, d.length() - 1);
        }
        return d;
    }

    private void addFileDrop(CamelContext camelContext, String code, SupplierProperties.FileDrop drop)
            throws Exception {
        String directory = properties.getInboxDir().resolve(code).toAbsolutePath().toString();
        TemplatedRouteBuilder route = TemplatedRouteBuilder.builder(camelContext, FILE_DROP_TEMPLATE)
                .routeId("file-drop-" + code)
                .parameter("supplier", code)
                .parameter("directory", directory)
                .parameter("minAge", drop.getMinAge().toMillis())
                .parameter("pollDelay", drop.getPollInterval().toMillis())
                .parameter("maxFilesPerPoll", maxFilesPerPoll())
                .parameter("executor", registerFileDropThreads(code, drop));
        boolean doneFile = drop.getReadLock() == SupplierProperties.ReadLock.DONE_FILE;
        if (doneFile) {
            route.parameter("doneFileName", "${file:name}" + drop.getDoneFileSuffix());
        }
        // with the read lock changed and a min-age, a file is taken once it has settled across polls by this
        // instance's clock (the filter, RegularFilesOnly), then claimed in PostgreSQL (the read lock, idempotent);
        // with a min-age of 0, Camel's changed read lock looks at it until it stops changing
        boolean settles = !doneFile && drop.getMinAge().toNanos() > 0;
        route.parameter("readLock", doneFile || settles ? "idempotent" : "idempotent-changed");
        String filter = "fileDropFilter-" + code;
        camelContext.getRegistry().bind(filter, new RegularFilesOnly(
                camelContext.getRegistry().lookupByNameAndType("linkRefusals", LinkRefusals.class),
                settles ? new SettledFiles(drop.getMinAge()) : null));
        route.parameter("filter", filter);
        route.add();
        LOG.info("file drop for supplier={} watches {} (read lock {}, {} in parallel)", code, directory,
                drop.getReadLock().name().toLowerCase().replace('_', '-'), drop.getConcurrency());
    }

    /**
     * The thread pool profile the template's {@code threads} step names: the supplier's concurrency as core and
     * maximum pool size, a full queue running the task in the polling thread (back-pressure on the poller);
     * the rest from Camel's default profile. A profile rather than numbers in the route because the route
     * schema takes only literal numbers for a pool size.
     */
    private String registerFileDropThreads(String code, SupplierProperties.FileDrop drop) {
        ThreadPoolProfile profile = new ThreadPoolProfile("file-drop-" + code);
        int threads = Math.max(1, drop.getConcurrency());
        profile.setPoolSize(threads);
        profile.setMaxPoolSize(threads);
        profile.setRejectedPolicy(ThreadPoolRejectedPolicy.CallerRuns);
        camelContext.getExecutorServiceManager().registerThreadPoolProfile(profile);
        return profile.getId();
    }

    private void addSftp(CamelContext camelContext, String code, SupplierProperties.Sftp sftp) throws Exception {
        if (sftp.getUsername() == null || sftp.getUsername().isBlank()) {
            throw new IllegalStateException("ingestor.suppliers." + code + ".sftp.username is required with sftp.host");
        }
        if (isBlank(sftp.getPassword()) && isBlank(sftp.getPrivateKeyFile())) {
            throw new IllegalStateException("ingestor.suppliers." + code + ".sftp needs password or private-key-file");
        }
        boolean strict = sftp.isStrictHostKeyChecking();
        String prefix = "ingestor.suppliers." + code + ".sftp.";
        if (strict && isBlank(sftp.getKnownHostsFile())) {
            throw new IllegalStateException(prefix
                    + "known-hosts-file is required: the SFTP server's host key is checked"
                    + " against it (a known_hosts file, e.g. from ssh-keyscan); to take any host key instead, set "
                    + prefix + "strict-host-key-checking: false");
        }
        if (!strict) {
            LOG.warn("sftp for supplier={} does NOT check the host key of {}:{} ({}strict-host-key-checking=false):"
                    + " whoever can redirect that address can pose as the server and receive the login",
                    code, sftp.getHost(), sftp.getPort(), prefix);
        }
        TemplatedRouteBuilder route = TemplatedRouteBuilder.builder(camelContext, SFTP_TEMPLATE)
                .routeId("sftp-" + code)
                .parameter("supplier", code)
                .parameter("host", sftp.getHost())
                .parameter("port", sftp.getPort())
                .parameter("directory", sftp.getDirectory() == null ? "" : sftp.getDirectory())
                .parameter("username", sftp.getUsername())
                .parameter("strictHostKeyChecking", strict ? "yes" : "no")
                .parameter("pollDelay", sftp.getPollInterval().toMillis())
                .parameter("maxFilesPerPoll", maxFilesPerPoll())
                .parameter("backoffMultiplier", Math.max(1, sftp.getBackoffMultiplier()))
                .parameter("delete", sftp.getAfterPickup() == SupplierProperties.AfterPickup.DELETE);
        // always given, empty when unused: the YAML DSL wraps these secret options in RAW(), inside which an
        // optional {{?placeholder}} is not resolved (RAW() also keeps any character of a password as it is)
        route.parameter("password", nullToEmpty(sftp.getPassword()))
                .parameter("privateKeyFile", nullToEmpty(sftp.getPrivateKeyFile()))
                .parameter("knownHostsFile", strict ? sftp.getKnownHostsFile() : "");
        if (sftp.getAfterPickup() == SupplierProperties.AfterPickup.MOVE) {
            // .done/ (.rejected/ for a rejected file), the name shortened to fit (dev.ingestor.source.file.OutcomeMove)
            route.parameter("move", "${bean:outcomeMove.sftp}");
        }
        boolean doneFile = !isBlank(sftp.getDoneFileName());
        if (doneFile) {
            route.parameter("doneFileName", sftp.getDoneFileName());
        }
        // without a done file, a file is taken once it has settled across polls by this instance's clock (the
        // filter, RegularRemoteFilesOnly), then claimed in PostgreSQL (the read lock, SftpClaimReadLock)
        boolean settles = !doneFile && sftp.getMinAge().toNanos() > 0;
        String filter = "sftpFilter-" + code;
        camelContext.getRegistry().bind(filter, new RegularRemoteFilesOnly(
                camelContext.getRegistry().lookupByNameAndType("linkRefusals", LinkRefusals.class),
                settles ? new SettledFiles(sftp.getMinAge()) : null));
        route.parameter("filter", filter);
        String readLock = "sftpReadLock-" + code;
        camelContext.getRegistry().bind(readLock, new SftpClaimReadLock(
                camelContext.getRegistry().lookupByNameAndType("fileClaimRepository", FileClaimRepository.class),
                ClaimReleaseConfiguration.executor(camelContext),
                CLAIM_RELEASE_DELAY_MILLIS,
                settles,
                camelContext.getRegistry().lookupByNameAndType("sftpStallWatchdog", SftpStallWatchdog.class)));
        route.parameter("readLock", readLock);
        // runs on the one instance that holds the route's lease (SftpLeadership)
        String routeId = "sftp-" + code;
        String leaderPolicy = "sftpLeader-" + code;
        camelContext.getRegistry().bind(leaderPolicy, leadership.policyFor(camelContext, routeId));
        route.parameter("leaderPolicy", leaderPolicy);
        route.add();
        sftpRoutes.add(routeId);
        LOG.info("sftp for supplier={} polls {}@{}:{}/{} every {} (host key {}, after pickup {})", code,
                sftp.getUsername(),
                sftp.getHost(), sftp.getPort(), sftp.getDirectory(), sftp.getPollInterval(),
                strict ? "checked against " + sftp.getKnownHostsFile() : "NOT checked",
                sftp.getAfterPickup().name().toLowerCase());
    }

    /** {@code ingestor.intake.max-files-per-poll}, at least 1. */
    private int maxFilesPerPoll() {
        return Math.max(1, intake.getMaxFilesPerPoll());
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }
}
