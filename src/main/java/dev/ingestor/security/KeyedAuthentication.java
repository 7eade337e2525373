package dev.ingestor.security;

/** An authentication by a configured key or token, known by its SHA-256: what the per-key limits are kept by. */
interface KeyedAuthentication {

    /** The configured hash of the key (not a secret); never the key. */
    String keyHash();
}
