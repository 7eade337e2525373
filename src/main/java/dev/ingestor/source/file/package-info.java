/**
 * File sources (routes/source-file-drop.camel.yaml, routes/source-sftp.camel.yaml): the file-drop and SFTP routes
 * made per supplier, their poll strategies, read locks and claims, the moves after intake's answer, the symbolic
 * links they refuse, and strays left in the inbox.
 */
package dev.ingestor.source.file;
