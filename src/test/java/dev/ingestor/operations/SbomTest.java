package dev.ingestor.operations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import tools.jackson.databind.JsonNode;

/**
 * The software bill of materials the build writes into the jar (CycloneDX), served to the admin key at
 * /actuator/sbom/application: it names the libraries actually running, at the versions running.
 */
class SbomTest extends IngestorTestSupport {

    @Test
    void listsTheCamelAndSpringBootThatRun() throws Exception {
        // Maven runs the CycloneDX goals online only: a build with -o writes no bill of materials
        assumeTrue(getClass().getResource("/META-INF/sbom/application.cdx.json") != null,
                "no META-INF/sbom/application.cdx.json: this build ran offline (-o), where the CycloneDX plugin is skipped");
        var response = get("/actuator/sbom/application", ADMIN_KEY);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode sbom = JSON.readTree(response.body());
        assertThat(sbom.path("bomFormat").asString()).isEqualTo("CycloneDX");
        assertThat(version(sbom, "org.apache.camel", "camel-core-engine")).isEqualTo(camelContext.getVersion());
        assertThat(version(sbom, "org.springframework.boot", "spring-boot")).isEqualTo(SpringBootVersion.getVersion());
        assertThat(version(sbom, "org.junit.jupiter", "junit-jupiter-api")).as("test libraries are not shipped")
                .isNull();
    }

    @Test
    void isForTheAdminKeyOnly() throws Exception {
        assertThat(get("/actuator/sbom/application", null).statusCode()).isEqualTo(401);
        assertThat(get("/actuator/sbom/application", METRICS_TOKEN).statusCode()).isEqualTo(403);
    }

    private static String version(JsonNode sbom, String group, String name) {
        for (JsonNode component : sbom.path("components")) {
            if (group.equals(component.path("group").asString()) && name.equals(component.path("name").asString())) {
                return component.path("version").asString();
            }
        }
        return null;
    }
}
