package dev.ingestor.intake;

import java.nio.file.Path;

import dev.ingestor.job.ContentKey;

/** A file's bytes, safely in the raw store, with the identity computed while they were written. */
public record StoredContent(ContentKey key, long size, Path path) {

    public String supplier() {
        return key.supplier();
    }

    public String sha256() {
        return key.sha256();
    }
}
