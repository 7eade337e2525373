package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.InstanceId;
import dev.ingestor.config.SupplierProperties;
import dev.ingestor.intake.IntakeSettings;
import dev.ingestor.metrics.IngestorMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.PluginHelper;
import org.apache.camel.support.ResourceHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** SFTP host keys are checked unless a supplier explicitly turns checking off. */
@ExtendWith(OutputCaptureExtension.class)
class SftpHostKeyCheckingTest {

    private final DefaultCamelContext camel = new DefaultCamelContext();
    private final IngestorProperties properties = new IngestorProperties();

    @BeforeEach
    void loadTheSftpTemplate() throws Exception {
        PluginHelper.getRoutesLoader(camel).loadRoutes(ResourceHelper.resolveMandatoryResource(camel,
                "file:" + Path.of("routes", "source-sftp.camel.yaml").toAbsolutePath()));
    }

    /** The installer; the context never starts, so no lease is ever taken. */
    private SupplierRouteInstaller installer() {
        IngestorMetrics metrics = new IngestorMetrics(new SimpleMeterRegistry());
        return new SupplierRouteInstaller(properties, new IntakeSettings(), camel, new SftpLeadership(
                new RouteLeases(null), new InstanceId(properties), new SftpSettings(), metrics));
    }

    @AfterEach
    void close() throws Exception {
        camel.close();
    }

    @Test
    void aSupplierWithoutKnownHostsIsRefusedAtStartNamingTheFileAndTheOptOut() {
        sftpSupplier("ACME");
        assertThatThrownBy(() -> installer().install())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ingestor.suppliers.ACME.sftp.known-hosts-file")
                .hasMessageContaining("ingestor.suppliers.ACME.sftp.strict-host-key-checking: false");
        assertThat(camel.getRouteDefinition("sftp-ACME")).isNull();
    }

    @Test
    void aKnownHostsFileMakesTheRouteCheckTheHostKey() throws Exception {
        sftpSupplier("ACME").setKnownHostsFile("/etc/ingestor/acme_known_hosts");
        installer().install();
        assertThat(templateParameter("sftp-ACME", "strictHostKeyChecking")).isEqualTo("yes");
        assertThat(templateParameter("sftp-ACME", "knownHostsFile")).isEqualTo("/etc/ingestor/acme_known_hosts");
    }

    @Test
    void anExplicitOptOutStartsWithOneWarningNamingTheSupplier(CapturedOutput output) throws Exception {
        sftpSupplier("ACME").setStrictHostKeyChecking(false);
        sftpSupplier("GLOBEX").setKnownHostsFile("/etc/ingestor/globex_known_hosts");
        properties.getSuppliers().get("GLOBEX").getSftp().setUsername("globex");
        installer().install();
        assertThat(templateParameter("sftp-ACME", "strictHostKeyChecking")).isEqualTo("no");
        assertThat(output.getAll().lines().filter(line -> line.contains("WARN"))
                .filter(line -> line.contains("host key")).toList())
                .singleElement().asString()
                .contains("supplier=ACME")
                .contains("ingestor.suppliers.ACME.sftp.strict-host-key-checking=false");
    }

    @Test
    void twoSuppliersPollingOneFolderWithOneAccountAreRefusedAtStartNamingBoth() throws Exception {
        SupplierProperties.Sftp acme = sftpSupplier("ACME");
        acme.setKnownHostsFile("/etc/ingestor/known_hosts");
        acme.setDirectory("outbox");
        SupplierProperties.Sftp globex = sftpSupplier("GLOBEX");
        globex.setKnownHostsFile("/etc/ingestor/known_hosts");
        globex.setHost("SFTP.example.org");
        globex.setDirectory("outbox/");
        assertThatThrownBy(() -> installer().install())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ingestor.suppliers.ACME.sftp and ingestor.suppliers.GLOBEX.sftp")
                .hasMessageContaining("ingestor@sftp.example.org:22/outbox");
        assertThat(camel.getRouteDefinition("sftp-ACME")).isNull();

        // another account on the same server and folder: its own files
        globex.setUsername("globex");
        installer().install();
        assertThat(camel.getRouteDefinition("sftp-GLOBEX")).isNotNull();
    }

    /**
     * The SFTP route's read lock releases claims on Camel's pool, which ClaimReleaseConfiguration makes as the
     * context starts: an SFTP route made before that configuration ran (Spring runs them in no promised order)
     * gets the pool all the same, the one the context then keeps.
     */
    @Test
    void anSftpRouteMadeBeforeTheClaimReleasePoolGetsIt() throws Exception {
        sftpSupplier("ACME").setKnownHostsFile("/etc/ingestor/acme_known_hosts");
        assertThat(camel.getRegistry().lookupByName(ClaimReleaseConfiguration.NAME)).isNull();
        installer().install();
        Object pool = camel.getRegistry().lookupByName(ClaimReleaseConfiguration.NAME);
        assertThat(pool).isNotNull();
        assertThat(camel.getRegistry().lookupByNameAndType("sftpReadLock-ACME", SftpClaimReadLock.class))
                .extracting("releases").isSameAs(pool);
        new ClaimReleaseConfiguration().beforeApplicationStart(camel);
        assertThat(camel.getRegistry().lookupByName(ClaimReleaseConfiguration.NAME)).isSameAs(pool);
    }

    /** The context is never started (that would poll): the installed route is read from its definition. */
    private String templateParameter(String routeId, String name) {
        return String.valueOf(camel.getRouteDefinition(routeId).getTemplateParameters().get(name));
    }

    private SupplierProperties.Sftp sftpSupplier(String code) {
        SupplierProperties supplier = new SupplierProperties();
        supplier.getFileDrop().setEnabled(false);
        supplier.getSftp().setHost("sftp.example.org");
        supplier.getSftp().setUsername("ingestor");
        supplier.getSftp().setPassword("pw");
        properties.getSuppliers().put(code, supplier);
        return supplier.getSftp();
    }
}
