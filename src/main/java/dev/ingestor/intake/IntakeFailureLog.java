package dev.ingestor.intake;

import dev.ingestor.intake.IntakeFailureStore.Arrival;
import dev.ingestor.notification.NotificationWriter;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The one way an arrival that did not become a job is put on record, whichever source it came from (drop, SFTP,
 * HTTP push, a stray in the inbox): its intake_failure row and its webhook notice commit together, or neither,
 * so operators who watch the webhook and those who read the list see the same failures.
 */
@Component
public class IntakeFailureLog {

    private final IntakeFailureStore store;
    private final NotificationWriter notifications;
    private final TransactionTemplate transactions;

    public IntakeFailureLog(IntakeFailureStore store, NotificationWriter notifications,
            PlatformTransactionManager transactionManager) {
        this.store = store;
        this.notifications = notifications;
        this.transactions = new TransactionTemplate(transactionManager);
    }

    /** Records {@code arrival} and queues its notice; answers the row's id. */
    public long record(Arrival arrival) {
        Long id = transactions.execute(status -> {
            long row = store.record(arrival);
            notifications.intakeFailure(row, arrival.supplier(), arrival.source(), arrival.fileName(),
                    arrival.outcome(),
                    arrival.reason());
            return row;
        });
        return id == null ? -1 : id;
    }
}
