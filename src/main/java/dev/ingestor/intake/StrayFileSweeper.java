package dev.ingestor.intake;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

import dev.ingestor.config.IngestorProperties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Files in the inbox that no supplier route will ever take: at the inbox root, or in a folder that is no
 * configured supplier. They are moved to a {@code .rejected/} folder beside them with a log line saying
 * why, so a supplier with a misnamed folder sees its files answered instead of silently ignored.
 */
@Component
public class StrayFileSweeper {

    private static final Logger LOG = LoggerFactory.getLogger(StrayFileSweeper.class);
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS");
    /** A file younger than this may still be written; it is left for the next sweep. */
    private static final long SETTLE_MILLIS = 2_000;

    private final Path inbox;
    private final IntakeGate gate;

    public StrayFileSweeper(IngestorProperties properties, IntakeGate gate) {
        this.inbox = properties.getInboxDir().toAbsolutePath();
        this.gate = gate;
    }

    /** Returns how many files were moved. */
    public int sweep() throws IOException {
        if (!Files.isDirectory(inbox)) {
            return 0;
        }
        int moved = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(inbox)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (name.startsWith(".")) {
                    continue;
                }
                if (Files.isRegularFile(entry)) {
                    moved += reject(entry, "it is at the inbox root; files belong in a supplier folder "
                            + gate.suppliers().stream().sorted().toList());
                } else if (Files.isDirectory(entry) && !gate.isSupplier(name)) {
                    moved += rejectFolder(entry, name);
                }
            }
        }
        return moved;
    }

    private int rejectFolder(Path folder, String name) throws IOException {
        String hint = gate.suppliers().stream().filter(code -> code.equalsIgnoreCase(name)).findFirst()
                .map(code -> " (did you mean " + code + "? supplier codes are case-sensitive)").orElse("");
        String reason = "folder " + FileNameRule.printable(name) + " is no configured supplier" + hint
                + "; configured suppliers are " + gate.suppliers().stream().sorted().toList();
        int moved = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(folder)) {
            for (Path file : files) {
                if (Files.isRegularFile(file) && !file.getFileName().toString().startsWith(".")) {
                    moved += reject(file, reason);
                }
            }
        }
        return moved;
    }

    private int reject(Path file, String reason) throws IOException {
        FileTime modified = Files.getLastModifiedTime(file);
        if (modified.toMillis() > Instant.now().toEpochMilli() - SETTLE_MILLIS) {
            return 0;
        }
        Path target = file.resolveSibling(".rejected")
                .resolve(LocalDateTime.now().format(STAMP) + "-" + file.getFileName());
        Files.createDirectories(target.getParent());
        Files.move(file, target);
        LOG.warn("intake rejected file={} reason=\"{}\" movedTo={}",
                FileNameRule.printable(inbox.relativize(file).toString()), reason,
                FileNameRule.printable(inbox.relativize(target).toString()));
        return 1;
    }

}
