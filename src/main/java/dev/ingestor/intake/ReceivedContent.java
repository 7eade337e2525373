package dev.ingestor.intake;

import java.nio.file.Path;

import dev.ingestor.job.ContentKey;

/**
 * Bytes received into the raw store's working folder, hashed but not yet in their place: intake puts them in
 * place ({@link RawStore#place}) inside the transaction that registers their key, under that key's lock, so
 * retention cannot delete the raw file of a key that is being registered again.
 *
 * @param synced whether the bytes were forced to disk already
 */
public record ReceivedContent(ContentKey key, long size, Path temp, boolean synced) {
}
