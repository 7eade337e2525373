package dev.ingestor.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Keeps the job lifecycle in one place: no statement in src/main/java outside {@link JobLifecycle} sets an
 * import job's state, and only {@link ImportJobStore} creates a job.
 */
class JobStateChangesTest {

    private static final Path MAIN = Path.of("src/main/java");
    private static final String LIFECYCLE = "JobLifecycle.java";
    private static final String STORE = "ImportJobStore.java";

    /** Joins {@code "a" + "b"} (with line comments between) into one literal, as the database receives it. */
    private static final Pattern CONCATENATION = Pattern.compile("\"\\s*(?://[^\\n]*\\s*)*\\+\\s*(?://[^\\n]*\\s*)*\"");
    /** {@code \n}, {@code \t} and the like written in a literal are white space to the database. */
    private static final Pattern ESCAPED_SPACE = Pattern.compile("\\\\[ntrf]");
    private static final Pattern UPDATE = Pattern.compile(
            "\\bupdate\\s+import_job\\b(?:\\s+(?:as\\s+)?(?!set\\b)\\w+)?\\s+set\\b(.*?)(?:\\bwhere\\b|$)",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    private static final Pattern SETS_STATE = Pattern.compile("(?<![\\w.])state\\s*=", Pattern.CASE_INSENSITIVE);
    private static final Pattern INSERT = Pattern.compile("\\binsert\\s+into\\s+import_job\\b",
            Pattern.CASE_INSENSITIVE);

    @Test
    void onlyTheLifecycleChangesAJobsState() throws IOException {
        List<String> elsewhere = new ArrayList<>();
        int inLifecycle = 0;
        for (Path file : javaFiles()) {
            int changes = stateChanges(Files.readString(file));
            if (file.getFileName().toString().equals(LIFECYCLE)) {
                inLifecycle = changes;
            } else if (changes > 0) {
                elsewhere.add(MAIN.relativize(file) + " (" + changes + ")");
            }
        }
        assertThat(elsewhere).as("import_job state set outside JobLifecycle").isEmpty();
        // the scan sees the transitions where they are, so an empty result above means something
        assertThat(inLifecycle).isGreaterThanOrEqualTo(9);
    }

    @Test
    void onlyTheStoreCreatesAJob() throws IOException {
        List<String> elsewhere = new ArrayList<>();
        int inStore = 0;
        for (Path file : javaFiles()) {
            long inserts = INSERT.matcher(Files.readString(file)).results().count();
            if (file.getFileName().toString().equals(STORE)) {
                inStore = (int) inserts;
            } else if (inserts > 0) {
                elsewhere.add(MAIN.relativize(file).toString());
            }
        }
        assertThat(elsewhere).as("import_job inserted outside ImportJobStore").isEmpty();
        assertThat(inStore).isEqualTo(2);
    }

    @Test
    void theScanFindsAStateChangeHoweverItIsWritten() {
        assertThat(stateChanges("jdbc.update(\"UPDATE import_job SET state = ? WHERE id = ?\")")).isEqualTo(1);
        assertThat(stateChanges(
                "jdbc.update(\"update  import_job\\n set error = ?,\" + \" STATE='FAILED' where id = ?\")"))
                .isEqualTo(1);
        assertThat(stateChanges(
                "jdbc.update(\"UPDATE import_job SET error = ?,\"\n   // why\n   + \" state=? WHERE id = ?\")"))
                .isEqualTo(1);
        assertThat(stateChanges("\"\"\"\n  UPDATE import_job j\n  SET state = 'RECEIVED'\n  \"\"\"")).isEqualTo(1);
        // the lease, counts and checkpoint are not the state; a state in the WHERE guard changes nothing
        assertThat(stateChanges("\"UPDATE import_job SET lease_until = now() WHERE id = ? AND state = 'FAILED'\""))
                .isZero();
        assertThat(stateChanges("\"UPDATE http_request SET state = 'COMPLETED' WHERE id = ?\"")).isZero();
        assertThat(stateChanges("\"UPDATE import_job SET lease_state = 1, j.state_x = 2 WHERE id = ?\"")).isZero();
    }

    static int stateChanges(String source) {
        String joined = ESCAPED_SPACE.matcher(CONCATENATION.matcher(source).replaceAll("")).replaceAll(" ");
        int found = 0;
        Matcher update = UPDATE.matcher(joined);
        while (update.find()) {
            if (SETS_STATE.matcher(update.group(1)).find()) {
                found++;
            }
        }
        return found;
    }

    private static List<Path> javaFiles() throws IOException {
        try (Stream<Path> files = Files.walk(MAIN)) {
            List<Path> java = files.filter(f -> f.toString().endsWith(".java")).toList();
            assertThat(java).isNotEmpty();
            return java;
        }
    }
}
