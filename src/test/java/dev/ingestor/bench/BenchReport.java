package dev.ingestor.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The benchmark's results: every line is printed at once (so a run that dies half-way still shows what it
 * measured) and the whole report is rewritten to {@code target/benchmarks/<name>.txt} after every line.
 */
final class BenchReport {

    private final Path file;
    private final List<String> lines = new ArrayList<>();

    BenchReport(Path file) {
        this.file = file;
    }

    synchronized void line(String format, Object... args) {
        String text = args.length == 0 ? format : String.format(Locale.ROOT, format, args);
        for (String l : text.split("\n", -1)) {
            lines.add(l);
            System.out.println("[bench] " + l);
        }
        System.out.flush();
        write();
    }

    void blank() {
        line("");
    }

    void header(String title) {
        blank();
        line("== " + title + " " + "=".repeat(Math.max(3, 72 - title.length())));
    }

    private void write() {
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, lines);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    Path file() {
        return file;
    }
}
