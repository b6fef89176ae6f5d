package dev.efferent.plugin;

/** A setting whose value cannot be used; the message names the setting, where to set it and what it accepts. */
public class SettingsException extends RuntimeException {
    /** A problem described by {@code message}, which should name the setting (see {@link Settings#describe}). */
    public SettingsException(String message) {
        super(message);
    }
}
