package dev.ingestor.failure;

import org.apache.camel.NamedNode;
import org.apache.camel.Processor;
import org.apache.camel.Route;
import org.apache.camel.spi.Policy;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code policy: {ref: transactionPolicy}} in a route: the wrapped steps run in one database transaction,
 * which commits if they succeed and rolls back if they fail or mark the exchange rollback-only.
 *
 * <p>Camel's own {@code transacted} brings its TransactionErrorHandler, which redelivers a failed step inside the
 * same transaction: after a PostgreSQL error that transaction is aborted, so every retry fails too, and the
 * exchange is marked exhausted so the calling route cannot retry either. With this policy in a route without
 * an error handler, a failure rolls back and reaches the caller, whose redelivery policy sends the exchange
 * again into a fresh transaction.
 */
@Component("transactionPolicy")
class TransactionPolicy implements Policy {

    private final TransactionTemplate transactions;

    public TransactionPolicy(PlatformTransactionManager transactionManager) {
        this.transactions = new TransactionTemplate(transactionManager);
    }

    @Override
    public void beforeWrap(Route route, NamedNode definition) {
    }

    @Override
    public Processor wrap(Route route, Processor processor) {
        return exchange -> transactions.executeWithoutResult(status -> {
            try {
                // synchronous: a Spring transaction is bound to this thread
                processor.process(exchange);
            } catch (Exception e) {
                exchange.setException(e);
            }
            if (exchange.getException() != null || exchange.isRollbackOnly()) {
                status.setRollbackOnly();
            }
        });
    }
}
