package dev.ingestor.source.file;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;

import dev.ingestor.intake.FileNameRule;
import dev.ingestor.intake.FileNotReadException;
import dev.ingestor.intake.FileState;
import dev.ingestor.intake.IntakeHeaders;
import org.apache.camel.Exchange;
import org.apache.camel.component.file.FileComponent;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.component.file.GenericFileEndpoint;
import org.apache.camel.util.ObjectHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Where the file sources move an answered file, evaluated by Camel right before each move (the routes' move
 * and moveFailed options): {@code .<outcome>/<stamped name>}, the name shortened to fit ({@link KeptName}). For
 * a dropped file the folders are checked first: a supplier or outcome folder that is a symbolic link is
 * refused, so no file is ever moved through a link (the file stays in place); and so is an answered file that changed
 * since intake read it ({@link IntakeHeaders#READ_AS}), which is taken again as it is now. Not a file of a supplier
 * with a done file, whose marker says the file is complete and which Camel removes before the move (a file left
 * without it would never be taken), nor one whose intake failed, which goes to .failed/ as its record says. A file
 * whose intake a stop cut short stays in place too ({@link #fileDropFailed}).
 */
@Component("outcomeMove")
class OutcomeMove {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.intake");

    /** Exchange property: the move planned before the file is moved, so a record of it names the right place. */
    static final String PLANNED = "IngestorPlannedMove";

    private final LinkRefusals refusals;

    public OutcomeMove(LinkRefusals refusals) {
        this.refusals = refusals;
    }

    /** A dropped file after intake: {@code .done/}, {@code .duplicate/} or {@code .rejected/}. */
    public String fileDrop(Exchange exchange) {
        if (!hasDoneFile(exchange)) {
            refuseChangedSinceRead(exchange);
        }
        return local(exchange, exchange.getProperty(IntakeHeaders.OUTCOME, "done", String.class));
    }

    /**
     * A dropped file whose intake failed past its redelivery: {@code .failed/}, where its record says it is. An intake
     * that a stop cut short (the instance stopping past its shutdown timeout interrupts it, and the error handler no
     * longer runs, so no record is written) is no failure of the file: it stays in place and is taken again. Nor is a
     * file written to since its listing found it settled, which intake did not read: it stays in place to settle again.
     * Nor one gone before intake opened it (another instance took it over), which is not there to move.
     */
    public String fileDropFailed(Exchange exchange) {
        Throwable failure = failure(exchange);
        FileNotReadException notRead = ObjectHelper.getException(FileNotReadException.class, failure);
        if (notRead != null) {
            // the file-source-errors line said why: it waits to settle again, or whoever took it answers it
            throw notMoved(path(exchange), notRead.getMessage());
        }
        if (!"failed".equals(exchange.getProperty(IntakeHeaders.OUTCOME, String.class))
                && (exchange.getContext().isStopping() || cutShort(failure))) {
            Path path = path(exchange);
            LOG.warn("intake of {} was cut short by a stop; the file stays in place and is taken again",
                    FileNameRule.printable(path.toString()));
            throw notMoved(path, "its intake was cut short by a stop");
        }
        return local(exchange, "failed");
    }

    /**
     * What failed the file's exchange. Camel evaluates the move after a failure on a copy of the exchange that keeps
     * the failure only as the caught exception, once an error handler has seen it.
     */
    private static Throwable failure(Exchange exchange) {
        Throwable failure = exchange.getException();
        return failure != null ? failure : exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
    }

    /** Whether {@code failure} is a thread interrupted or a pool shut down by a stop, not a failure of the file. */
    static boolean cutShort(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof InterruptedException || t instanceof java.io.InterruptedIOException
                    || t instanceof java.nio.channels.ClosedByInterruptException
                    || t instanceof java.util.concurrent.RejectedExecutionException) {
                return true;
            }
        }
        return false;
    }

    /**
     * A remote file after intake: {@code .rejected/} when rejected, else {@code .done/} (duplicates too). A file that
     * changed on the server since it was read (appended to, written again) is left there, to be taken again as it is
     * now. Not with a done file, whose marker Camel removes before the move (as for dropped files).
     */
    public String sftp(Exchange exchange) throws java.io.IOException {
        String changed = hasDoneFile(exchange) ? null : RemoteDownload.changedSinceRead(exchange);
        if (changed != null) {
            String name = FileNameRule.printable(file(exchange).getAbsoluteFilePath());
            LOG.warn("intake remote file={} changed after it was read ({}); left in place to be taken again", name,
                    changed);
            throw new IllegalStateException("the remote file " + name + " is not moved: it changed after it was read");
        }
        String outcome = "rejected".equals(exchange.getProperty(IntakeHeaders.OUTCOME, String.class))
                ? "rejected"
                : "done";
        return planned(exchange, outcome);
    }

    /**
     * Where the file of this exchange goes for {@code outcome}, relative to its folder: {@code .<outcome>/<stamped
     * name>}.
     * The first call decides the stamped name and later calls for the same outcome return it, so the move and a
     * record written before it name the same file.
     */
    public String planned(Exchange exchange, String outcome) {
        String folder = "." + outcome + "/";
        String plan = exchange.getProperty(PLANNED, String.class);
        if (plan == null || !plan.startsWith(folder)) {
            plan = folder + KeptName.stamped(file(exchange).getFileNameOnly(), LocalDateTime.now());
            exchange.setProperty(PLANNED, plan);
        }
        return plan;
    }

    /**
     * Whether the file's route waits for a done file: Camel removes the marker before the move, so a file left in
     * place then would never be taken again.
     */
    private static boolean hasDoneFile(Exchange exchange) {
        return exchange.getFromEndpoint() instanceof GenericFileEndpoint<?> from && from.getDoneFileName() != null;
    }

    /** A file written again or replaced since intake read it: what is there now was never read; taken again. */
    private static void refuseChangedSinceRead(Exchange exchange) {
        FileState readAs = exchange.getProperty(IntakeHeaders.READ_AS, FileState.class);
        Path path = path(exchange);
        if (readAs != null && !readAs.equals(FileState.now(path))) {
            LOG.warn("intake file={} changed after it was read; left in place to be taken again",
                    FileNameRule.printable(path.toString()));
            throw notMoved(path, "it changed after it was read");
        }
    }

    private String local(Exchange exchange, String outcome) {
        Path path = path(exchange);
        Path folder = path.getParent();
        Path target = folder.resolve("." + outcome);
        refuseLinks(path, folder, target);
        createOutcomeFolder(path, target);
        return planned(exchange, outcome);
    }

    /** Refuses the move of {@code file} when one of {@code folders} is a symbolic link. */
    private void refuseLinks(Path file, Path... folders) {
        for (Path checked : folders) {
            if (Files.isSymbolicLink(checked)) {
                refusals.refuse(String.valueOf(checked.getParent()),
                        "a symbolic link where a file was to be moved; the file"
                                + " is left in place",
                        String.valueOf(checked.getFileName()));
                throw notMoved(file, checked + " is a symbolic link");
            }
        }
    }

    /**
     * Makes the outcome folder before Camel moves the file into it. Camel checks that a folder is missing and then
     * makes it, and fails the move when another consumer made it in between: two files answered at once into a
     * folder not there yet (the supplier's concurrency, or a second instance) left one in place, to be taken again
     * as a duplicate of itself. {@code createDirectory} makes the folder or finds it made, and never follows a link
     * that took its place (a link there is an existing entry); the check after it catches one made meanwhile.
     * Anything else in the way (a plain file of that name, no permission) is left to Camel's move, whose failure
     * names the file and leaves it in place.
     */
    private void createOutcomeFolder(Path file, Path target) {
        try {
            Files.createDirectory(target);
        } catch (IOException inTheWay) {
            // made meanwhile by a sibling consumer, there from the start, or something Camel's move will report
        }
        refuseLinks(file, target);
    }

    /**
     * Stops the move. Camel takes the failure of its move expression as a file with no new name (it logs a failed
     * commit without this message), so the link's own refusal line ({@link LinkRefusals}) is what tells an operator;
     * the message names the file for a caller that does read it.
     */
    private static IllegalStateException notMoved(Path file, String why) {
        return new IllegalStateException("not moved, left in place: " + FileNameRule.printable(file.toString())
                + ": " + FileNameRule.printable(why));
    }

    /** The dropped file of this exchange, as an absolute path. */
    private static Path path(Exchange exchange) {
        return ((File) file(exchange).getFile()).toPath().toAbsolutePath();
    }

    static GenericFile<?> file(Exchange exchange) {
        GenericFile<?> file = exchange.getProperty(FileComponent.FILE_EXCHANGE_FILE, GenericFile.class);
        if (file == null) {
            throw new IllegalStateException("no file on this exchange: only file routes move files");
        }
        return file;
    }
}
