/**
 * The sources of routes/source-*.camel.yaml, what each needs before intake: the file-drop and SFTP routes made per
 * supplier, their read locks and claims, the moves after an answer, the symbolic links they refuse, strays in the
 * inbox; and the HTTP pushes (files, item batches with request-level idempotency).
 */
package dev.ingestor.source;
