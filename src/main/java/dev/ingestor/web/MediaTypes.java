package dev.ingestor.web;

import java.util.Locale;

/** The media type of a Content-Type header, without parameters, in lower case; null when absent. */
public final class MediaTypes {

    private MediaTypes() {
    }

    public static String of(String contentType) {
        if (contentType == null || contentType.isBlank()) {
            return null;
        }
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
    }
}
