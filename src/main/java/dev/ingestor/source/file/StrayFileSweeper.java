package dev.ingestor.source.file;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.intake.FileNameRule;
import dev.ingestor.intake.IntakeFailureLog;
import dev.ingestor.intake.IntakeFailureStore;
import dev.ingestor.intake.IntakeGate;
import dev.ingestor.intake.IntakeSettings;
import dev.ingestor.logging.SafeText;
import dev.ingestor.metrics.IngestorMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Files in the inbox that no supplier route will ever take: at the inbox root, or in a folder that is no
 * configured supplier. They are moved to a {@code .rejected/} folder beside them with a log line saying
 * why, so a supplier with a misnamed folder sees its files answered instead of silently ignored. A file of an
 * unknown folder only once this instance has seen it there for {@code ingestor.intake.unknown-folder-grace}: in a
 * rolling deploy that adds a supplier, its folder is unknown to the instances not yet deployed, and its files are
 * the new instances' to take. Counted from when a sweep first saw it, not from its time of change, which a copy
 * that keeps times (scp -p, rsync -t) sets in the past. Symbolic links are never followed: a linked file or
 * folder, or a linked {@code .rejected/}, is left in place; a sweep counts them as a poll does and reports a count
 * per folder when it changes ({@link LinkRefusals}).
 */
@Component
class StrayFileSweeper {

    private static final Logger LOG = LoggerFactory.getLogger(StrayFileSweeper.class);
    /** A file younger than this may still be written; it is left for the next sweep. */
    private static final long SETTLE_MILLIS = 2_000;
    /** The source a stray is recorded and counted under: it reached no supplier's route. */
    static final String SOURCE = "stray";
    /** The name a sweep's refusals are reported under, as a route's are under its id. */
    static final String SWEEP = "file-drop-strays";
    static final String LINK_IN_INBOX = "a symbolic link in the inbox; links are never followed";
    static final String LINKED_REJECTED = "the outcome folder .rejected is a symbolic link; nothing is moved through it";

    private final Path inbox;
    private final IntakeGate gate;
    private final LinkRefusals refusals;
    private final IntakeFailureLog failures;
    private final IngestorMetrics metrics;
    private final long unknownFolderMillis;
    /** When a sweep first saw each file of an unknown folder that is still there (System.currentTimeMillis). */
    private final Map<Path, Long> firstSeen = new ConcurrentHashMap<>();

    public StrayFileSweeper(IngestorProperties properties, IntakeGate gate, LinkRefusals refusals,
            IntakeFailureLog failures, IngestorMetrics metrics, IntakeSettings intake) {
        this.inbox = properties.getInboxDir().toAbsolutePath();
        this.unknownFolderMillis = intake.getUnknownFolderGrace().toMillis();
        this.gate = gate;
        this.refusals = refusals;
        this.failures = failures;
        this.metrics = metrics;
        // from 0, so that the intake alert sees the first stray file after a start
        metrics.intakeFromZero(null, SOURCE, "rejected");
    }

    /** Returns how many files were moved. */
    public int sweep() throws IOException {
        refusals.beginPoll();
        boolean done = false;
        try {
            int moved = sweepInbox();
            done = true;
            return moved;
        } finally {
            if (done) {
                refusals.endPoll(SWEEP, true);
            } else {
                refusals.abandonPoll();
            }
        }
    }

    private int sweepInbox() throws IOException {
        if (!Files.isDirectory(inbox)) {
            return 0;
        }
        Set<Path> seen = new HashSet<>();
        try {
            return sweepInbox(seen);
        } finally {
            firstSeen.keySet().retainAll(seen);
        }
    }

    private int sweepInbox(Set<Path> seen) throws IOException {
        int moved = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(inbox)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (name.startsWith(".")) {
                    continue;
                }
                BasicFileAttributes attributes = attributes(entry);
                if (attributes == null) {
                    continue;
                }
                if (attributes.isSymbolicLink()) {
                    // a supplier's linked folder is reported by its route, which refuses it
                    if (!gate.isSupplier(name)) {
                        refusals.refuse(inbox.toString(), LINK_IN_INBOX, name);
                    }
                } else if (attributes.isRegularFile()) {
                    moved += reject(entry, "it is at the inbox root; files belong in a supplier folder "
                            + gate.suppliers().stream().sorted().toList());
                } else if (attributes.isDirectory() && !gate.isSupplier(name)) {
                    moved += rejectFolder(entry, name, seen);
                }
            }
        }
        return moved;
    }

    private int rejectFolder(Path folder, String name, Set<Path> seen) throws IOException {
        String hint = gate.suppliers().stream().filter(code -> code.equalsIgnoreCase(name)).findFirst()
                .map(code -> " (did you mean " + code + "? supplier codes are case-sensitive)").orElse("");
        String reason = "folder " + FileNameRule.printable(name) + " is no configured supplier" + hint
                + "; configured suppliers are " + gate.suppliers().stream().sorted().toList();
        int moved = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(folder)) {
            for (Path file : files) {
                if (file.getFileName().toString().startsWith(".")) {
                    continue;
                }
                BasicFileAttributes attributes = attributes(file);
                if (attributes == null) {
                    continue;
                }
                if (attributes.isSymbolicLink()) {
                    refusals.refuse(folder.toString(), LINK_IN_INBOX, file.getFileName().toString());
                } else if (attributes.isRegularFile()) {
                    seen.add(file);
                    long now = System.currentTimeMillis();
                    if (now - firstSeen.computeIfAbsent(file, f -> now) >= unknownFolderMillis) {
                        moved += reject(file, reason);
                    }
                }
            }
        }
        return moved;
    }

    /** Moves {@code file} to .rejected/ once it has settled; returns how many files were moved. */
    private int reject(Path file, String reason) throws IOException {
        FileTime modified = Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS);
        if (modified.toMillis() > Instant.now().toEpochMilli() - SETTLE_MILLIS) {
            return 0;
        }
        Path folder = file.resolveSibling(".rejected");
        if (Files.isSymbolicLink(folder)) {
            refusals.refuse(file.getParent().toString(), LINKED_REJECTED, file.getFileName().toString());
            return 0;
        }
        Path target = folder.resolve(KeptName.stamped(file.getFileName().toString(), LocalDateTime.now()));
        long size = Files.size(file);
        Files.createDirectories(folder);
        Files.move(file, target, LinkOption.NOFOLLOW_LINKS);
        record(file, size, reason, target);
        LOG.warn("intake rejected file={} reason=\"{}\" movedTo={}",
                FileNameRule.printable(inbox.relativize(file).toString()), reason,
                FileNameRule.printable(inbox.relativize(target).toString()));
        return 1;
    }

    /**
     * The supplier of a stray is the folder it lay in (none at the inbox root). A record that cannot be written
     * (database away) is logged; the file is answered all the same.
     */
    private void record(Path file, long size, String reason, Path target) {
        Path parent = file.getParent();
        String folder = parent.equals(inbox) ? null : parent.getFileName().toString();
        metrics.intake(null, SOURCE, "rejected");
        try {
            failures.record(
                    new IntakeFailureStore.Arrival(folder, SOURCE, file.getFileName().toString(), size, "rejected",
                            reason, target.toString()));
        } catch (RuntimeException e) {
            LOG.error("could not record the stray file {}: {}",
                    FileNameRule.printable(inbox.relativize(file).toString()),
                    SafeText.of(e.toString()));
        }
    }

    /** The entry's own attributes (a link's, not its target's); null when it vanished meanwhile. */
    private static BasicFileAttributes attributes(Path entry) {
        try {
            return Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return null;
        }
    }
}
