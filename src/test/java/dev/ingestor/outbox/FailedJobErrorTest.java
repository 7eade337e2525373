package dev.ingestor.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What a supplier is shown of a FAILED job's error: the stage and the dead letter, never the message. */
class FailedJobErrorTest {

    @Test
    void aSupplierIsShownTheStageAndTheDeadLetterOfAnErrorWrittenHere() {
        String error = FailedJobError.of("processing", 42, """
                org.postgresql.util.PSQLException: ERROR: relation "item"\
                 does not exist
                  Where: SQL statement "INSERT INTO item ..."\
                """);
        assertThat(error).startsWith("processing failed (dead letter 42): org.postgresql");
        assertThat(FailedJobError.shownToSupplier(error)).isEqualTo("processing failed (dead letter 42)");
    }

    @Test
    void anErrorOfAnOlderFormShowsTheStageOnlyAndAnyOtherTextNothingOfItself() {
        assertThat(FailedJobError.shownToSupplier("validation failed: java.sql.SQLException: boom"))
                .isEqualTo("validation failed");
        assertThat(FailedJobError.shownToSupplier("ERROR: duplicate key value violates unique constraint"))
                .isEqualTo(FailedJobError.UNNAMED);
        assertThat(FailedJobError.shownToSupplier(null)).isEqualTo(FailedJobError.UNNAMED);
    }

    @Test
    void aStageThatIsNotOneWordIsWrittenAsUnknown() {
        assertThat(FailedJobError.of("x (dead letter 1): y", 7, "m")).startsWith("unknown failed (dead letter 7): ");
    }
}
