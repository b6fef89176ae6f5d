package dev.efferent.tools.spi;

/**
 * A tool failed in a way the user should read about: the message says what was wrong and what to do,
 * e.g. {@code "path '../x' is outside the allowed roots [/home/me/work]"}.
 */
public class ToolException extends RuntimeException {

    public ToolException(String message) {
        super(message);
    }

    public ToolException(String message, Throwable cause) {
        super(message, cause);
    }
}
