package dev.ingestor.intake;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;

/**
 * A dropped file, read as it was opened: at its end it checks that as many bytes were read as it had when opened,
 * and that the file at its path is still the one opened ({@link FileState}); otherwise the read fails with {@link
 * FileChangedWhileReadException}. The state it was opened in goes with the exchange ({@link IntakeHeaders#READ_AS}),
 * so the move after intake can see a file changed after it was read.
 */
public final class LocalFileInput extends FilterInputStream {

    private final Path file;
    private final FileState opened;
    private long read;
    private boolean checked;

    LocalFileInput(InputStream in, Path file, FileState opened) {
        super(in);
        this.file = file;
        this.opened = opened;
    }

    public FileState opened() {
        return opened;
    }

    @Override
    public int read() throws IOException {
        int b = super.read();
        if (b < 0) {
            atEnd();
        } else {
            read++;
        }
        return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        int n = super.read(buffer, offset, length);
        if (n < 0) {
            atEnd();
        } else {
            read += n;
        }
        return n;
    }

    private void atEnd() throws IOException {
        if (checked) {
            return;
        }
        checked = true;
        String name = FileNameRule.printable(String.valueOf(file.getFileName()));
        if (read != opened.size()) {
            throw new FileChangedWhileReadException(name, opened.size() + " bytes when opened, " + read + " read");
        }
        FileState now = FileState.now(file);
        if (!opened.equals(now)) {
            throw new FileChangedWhileReadException(name, now == null
                    ? "it is gone"
                    : "now " + now.size() + " bytes, changed at " + java.time.Instant.ofEpochMilli(now.modifiedMillis())
                            + (java.util.Objects.equals(now.fileKey(), opened.fileKey()) ? "" : ", another file"));
        }
    }
}
