package dev.ingestor.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;

import org.junit.jupiter.api.Test;

/**
 * A job's id is a UUID of version 7, its arrival first: a later job's id sorts after an earlier one's as PostgreSQL
 * sorts uuids (byte by byte, as their text does), so the oldest jobs, the ones retention deletes, lie together in
 * every index by job (docs/design.md, Keys expire).
 */
class JobIdsTest {

    @Test
    void aJobsIdIsOfVersion7AndALaterOneSortsAfterIt() throws InterruptedException {
        UUID earlier = ImportJobStore.newId();
        Thread.sleep(2);
        UUID later = ImportJobStore.newId();

        assertThat(earlier.version()).isEqualTo(7);
        assertThat(later.version()).isEqualTo(7);
        assertThat(later.toString()).isGreaterThan(earlier.toString());
    }
}
