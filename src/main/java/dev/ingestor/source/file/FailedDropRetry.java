package dev.ingestor.source.file;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.SupplierProperties;
import dev.ingestor.intake.FileNameRule;
import dev.ingestor.intake.IntakeFailureStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Sends a dropped file that failed at intake in again: from {@code inbox/<supplier>/.failed/} back into
 * {@code inbox/<supplier>/} under the name the supplier gave it, where the supplier's route takes it as if it
 * had just arrived (nothing of the failed attempt was committed). Only a failure, never a rejection (no retry
 * fixes those); only a regular file, never through a symbolic link; never over a file of the same name.
 */
@Component
public class FailedDropRetry {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.admin");

    /** What became of a retry: the file's place in the inbox, or why it was refused. */
    public record Result(Path movedTo, String refusal) {
        static Result refused(String why) {
            return new Result(null, why);
        }
    }

    private final IngestorProperties properties;
    private final IntakeFailureStore failures;
    private final TransactionTemplate transactions;

    public FailedDropRetry(IngestorProperties properties, IntakeFailureStore failures,
            PlatformTransactionManager transactionManager) {
        this.properties = properties;
        this.failures = failures;
        this.transactions = new TransactionTemplate(transactionManager);
    }

    /** Empty when there is no such record. */
    public Optional<Result> retry(long id, String who) {
        Optional<Result> result;
        try {
            result = transactions.execute(status -> failures.lock(id).map(failure -> {
                String refusal = refusal(failure);
                if (refusal != null) {
                    return Result.refused(refusal);
                }
                Path inboxFolder = properties.getInboxDir().toAbsolutePath().normalize().resolve(failure.supplier());
                Path target = inboxFolder.resolve(failure.fileName());
                // the row first: when the move is refused or fails the transaction rolls the mark back
                failures.markRetried(failure.id(), who, target.toString());
                return move(Path.of(failure.location()).toAbsolutePath().normalize(), inboxFolder, target,
                        failure.supplier());
            }));
        } catch (RetryRefusedException e) {
            result = Optional.of(Result.refused(e.getMessage()));
        }
        result.ifPresent(r -> LOG.info("admin action=retry-intake-failure id={} by={} result={}", id, who,
                r.movedTo() != null
                        ? "moved back to " + FileNameRule.printable(r.movedTo().toString())
                        : "refused (" + r.refusal() + ")"));
        return result;
    }

    private String refusal(IntakeFailureStore.Failure failure) {
        if (!"failed".equals(failure.outcome())) {
            return "intake failure " + failure.id() + " was " + failure.outcome()
                    + ", which no retry fixes; the supplier has to send a new file";
        }
        if (failure.retried()) {
            return "intake failure " + failure.id() + " was retried already";
        }
        SupplierProperties supplier = properties.getSuppliers().get(failure.supplier());
        if (!"file-drop".equals(failure.source()) || supplier == null || !supplier.getFileDrop().isEnabled()
                || failure.location() == null) {
            return "intake failure " + failure.id()
                    + " is no dropped file of a supplier with a file drop; only those are moved back";
        }
        if (FileNameRule.problem(failure.fileName()).isPresent()) {
            return "intake failure " + failure.id() + " has a file name that cannot go back into the inbox";
        }
        return null;
    }

    /**
     * Moves the file back (or throws {@link RetryRefusedException}), refusing anything that is not a regular file in
     * the supplier's own .failed folder.
     */
    private Result move(Path file, Path inboxFolder, Path target, String supplier) {
        Path failedFolder = inboxFolder.resolve(".failed");
        if (!failedFolder.equals(file.getParent())) {
            throw new RetryRefusedException("the file is no longer in " + failedFolder);
        }
        if (Files.isSymbolicLink(inboxFolder) || Files.isSymbolicLink(failedFolder)) {
            throw new RetryRefusedException("a folder on the way is a symbolic link; nothing is moved through it");
        }
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new RetryRefusedException("the file is gone from " + failedFolder);
        }
        if (!attributes.isRegularFile()) {
            throw new RetryRefusedException("the file is no regular file (a link or a folder took its place)");
        }
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            // before the marker, which would otherwise mark the supplier's own file of that name as complete
            throw alreadyInTheInbox(target);
        }
        // the marker first: a marker alone is never taken, while a file moved back without its marker would never
        // be, and the mark's rollback would leave it there with no retry left
        Path marker = doneMarker(target, supplier);
        try {
            // not atomic on purpose: an atomic rename would silently replace a file of the same name in the inbox
            Files.move(file, target, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            removeQuietly(marker);
            if (e instanceof FileAlreadyExistsException) {
                throw alreadyInTheInbox(target); // put there since the check above
            }
            if (e instanceof NoSuchFileException) {
                throw new RetryRefusedException("the file is gone from " + failedFolder);
            }
            throw new UncheckedIOException(e);
        }
        return new Result(target, null);
    }

    /**
     * A supplier whose files are taken once their marker exists gets the marker too: the file is complete. Answers
     * the marker this made (null: none was needed, or the supplier's own is there); refuses the retry when it cannot
     * be made.
     */
    private Path doneMarker(Path target, String supplier) {
        SupplierProperties.FileDrop drop = properties.getSuppliers().get(supplier).getFileDrop();
        if (drop.getReadLock() != SupplierProperties.ReadLock.DONE_FILE) {
            return null;
        }
        Path marker = target.resolveSibling(target.getFileName() + drop.getDoneFileSuffix());
        try {
            return Files.createFile(marker);
        } catch (FileAlreadyExistsException e) {
            return null; // the supplier's own, or one a retry before left: the file is complete either way
        } catch (IOException e) {
            throw new RetryRefusedException("its done marker cannot be made in the inbox ("
                    + e.getClass().getSimpleName() + "), so the file would never be taken; nothing is moved");
        }
    }

    private static RetryRefusedException alreadyInTheInbox(Path target) {
        return new RetryRefusedException("a file named " + FileNameRule.printable(target.getFileName().toString())
                + " is in the inbox already");
    }

    private static void removeQuietly(Path marker) {
        if (marker != null) {
            try {
                Files.deleteIfExists(marker);
            } catch (IOException e) {
                // a marker without its file is never taken; the next retry finds it there
            }
        }
    }

    /** The move was refused after the row was marked: thrown so the mark rolls back. */
    static class RetryRefusedException extends RuntimeException {
        RetryRefusedException(String message) {
            super(message);
        }
    }
}
