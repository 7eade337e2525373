package dev.ingestor.logging;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * The message of a log line ({@code %m}, {@code %msg}, {@code %message}) with every character that could end
 * the line or drive the terminal written as a visible escape: CR and LF as {@code \r} and {@code \n}, other
 * control characters (ESC, which starts ANSI sequences, NUL, NEL...) and the Unicode line and paragraph
 * separators as {@code \\uXXXX}. Tab stays. Whatever text a supplier controls (file names, paths, headers,
 * messages) and whichever caller forgot to escape it, one event is one line: nobody can forge a log line.
 * Stack traces are printed by their own converter and keep their lines.
 */
public class EscapedMessageConverter extends ClassicConverter {

    @Override
    public String convert(ILoggingEvent event) {
        return escape(event.getFormattedMessage());
    }

    public static String escape(String message) {
        if (message == null || !needsEscaping(message)) {
            return message;
        }
        StringBuilder out = new StringBuilder(message.length() + 16);
        for (int i = 0; i < message.length(); i++) {
            char c = message.charAt(i);
            if (c == '\n') {
                out.append("\\n");
            } else if (c == '\r') {
                out.append("\\r");
            } else if (isUnsafe(c)) {
                out.append(String.format("\\u%04X", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean needsEscaping(String message) {
        for (int i = 0; i < message.length(); i++) {
            if (isUnsafe(message.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    private static boolean isUnsafe(char c) {
        return (Character.isISOControl(c) && c != '\t') || c == '\u2028' || c == '\u2029';
    }
}
