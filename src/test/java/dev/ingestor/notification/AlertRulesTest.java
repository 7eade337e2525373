package dev.ingestor.notification;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ingestor.metrics.IngestorMetrics;
import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.yaml.snakeyaml.Yaml;

/**
 * The shipped Prometheus alert rules (ops/prometheus/ingestor-alerts.yml) are well formed and every metric their
 * expressions use is in the application's real /actuator/prometheus output: renaming a metric breaks this test
 * instead of silently muting an alert.
 */
@Timeout(60)
class AlertRulesTest extends IngestorTestSupport {

    private static final Pattern METRIC = Pattern.compile("\\b(ingestor_[a-z0-9_]+)\\b");

    @Autowired
    private IngestorMetrics metrics;
    @Autowired
    private dev.ingestor.config.IngestorProperties properties;

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> rules() throws Exception {
        Map<String, Object> file = new Yaml().load(Files.readString(Path.of("ops/prometheus/ingestor-alerts.yml")));
        List<Map<String, Object>> rules = new ArrayList<>();
        for (Map<String, Object> group : (List<Map<String, Object>>) file.get("groups")) {
            assertThat(group.get("name")).isNotNull();
            rules.addAll((List<Map<String, Object>>) group.get("rules"));
        }
        return rules;
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyRuleIsCompleteAndCoversWhatOperatorsAskedFor() throws Exception {
        List<Map<String, Object>> rules = rules();
        for (Map<String, Object> rule : rules) {
            assertThat(rule).containsKeys("alert", "expr", "labels", "annotations");
            assertThat((Map<String, Object>) rule.get("labels")).containsKey("severity");
            assertThat((Map<String, Object>) rule.get("annotations")).containsKeys("summary", "description", "runbook");
        }
        String expressions = String.join("\n", rules.stream().map(rule -> String.valueOf(rule.get("expr"))).toList());
        assertThat(expressions).contains("ingestor_dead_letters_total", "ingestor_outbox_lag_seconds",
                "ingestor_sftp_up",
                "ingestor_intake_total", "ingestor_notifications_total");
    }

    @Test
    void everyMetricARuleUsesIsExported() throws Exception {
        // the SFTP gauge exists once a supplier's server was polled; the counters from the start
        metrics.sftpUp("ACME", true);
        var response = get("/actuator/prometheus");
        assertThat(response.statusCode()).isEqualTo(200);
        Set<String> exported = new TreeSet<>();
        Matcher line = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]", Pattern.MULTILINE).matcher(response.body());
        while (line.find()) {
            exported.add(line.group(1));
        }
        for (Map<String, Object> rule : rules()) {
            Matcher used = METRIC.matcher(String.valueOf(rule.get("expr")));
            Set<String> names = new TreeSet<>();
            while (used.find()) {
                names.add(used.group(1));
            }
            assertThat(names).as("metrics of %s", rule.get("alert")).isNotEmpty();
            assertThat(exported).as("metrics of %s", rule.get("alert")).containsAll(names);
        }
    }

    /**
     * The counts the alerts watch with increase() are scraped at 0 before anything is counted: a series that appears
     * with its first count, at 1, shows Prometheus no increase (there is no sample before it), so the first dead
     * letter, failed or rejected file after a start would fire no alert.
     */
    @Test
    void theCountsTheAlertsWatchAreScrapedBeforeTheirFirstCount() throws Exception {
        String scrape = get("/actuator/prometheus").body();
        for (String stage : List.of("validation", "processing", "relay")) {
            assertThat(scrape).as("dead letters of " + stage)
                    .containsPattern("(?m)^ingestor_dead_letters_total\\{stage=\"" + stage + "\"} ");
        }
        assertThat(properties.getSuppliers()).isNotEmpty();
        properties.getSuppliers().forEach((code, supplier) -> {
            List<String> sources = new ArrayList<>(List.of("http"));
            if (supplier.getFileDrop().isEnabled()) {
                sources.add("file-drop");
            }
            for (String source : sources) {
                for (String outcome : List.of("failed", "rejected")) {
                    assertThat(scrape).as(code + " " + source + " " + outcome).containsPattern(
                            "(?m)^ingestor_intake_total\\{outcome=\"" + outcome + "\",source=\"" + source
                                    + "\",supplier=\"" + code + "\"} ");
                }
            }
        });
        assertThat(scrape).as("stray files")
                .containsPattern(
                        "(?m)^ingestor_intake_total\\{outcome=\"rejected\",source=\"stray\",supplier=\"unknown\"} ");
    }
}
