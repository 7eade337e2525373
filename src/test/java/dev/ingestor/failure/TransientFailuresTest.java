package dev.ingestor.failure;

import java.io.IOException;
import java.sql.SQLException;

import org.junit.jupiter.api.Test;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.transaction.TransactionSystemException;

import static org.assertj.core.api.Assertions.assertThat;

class TransientFailuresTest {

    @Test
    void passingFailuresAreTransient() {
        assertThat(TransientFailures.isTransient(new CannotAcquireLockException("deadlock"))).isTrue();
        assertThat(TransientFailures.isTransient(new RuntimeException(new SQLException("gone", "08006")))).isTrue();
        assertThat(TransientFailures.isTransient(new SQLException("terminated", "57P01"))).isTrue();
        assertThat(TransientFailures.isTransient(new SQLException("serialization", "40001"))).isTrue();
        assertThat(TransientFailures.isTransient(new IOException("disk"))).isTrue();
        TransactionSystemException rollbackFailed = new TransactionSystemException("rollback failed", new SQLException("closed", "08003"));
        assertThat(TransientFailures.isTransient(rollbackFailed)).isTrue();
    }

    @Test
    void mistakesAreNot() {
        assertThat(TransientFailures.isTransient(new DataIntegrityViolationException("check"))).isFalse();
        assertThat(TransientFailures.isTransient(new SQLException("syntax", "42601"))).isFalse();
        assertThat(TransientFailures.isTransient(new IllegalStateException("bug"))).isFalse();
        assertThat(TransientFailures.isTransient(null)).isFalse();
    }
}
