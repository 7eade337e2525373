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
        // these counters exist once they count something; the gauges and the notification counts from the start
        metrics.deadLetter("test");
        metrics.intake("ACME", "test", "failed");
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
}
