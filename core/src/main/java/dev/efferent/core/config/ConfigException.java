package dev.efferent.core.config;

/** Configuration is missing, unreadable or invalid. The message names the file, key or value at fault. */
public class ConfigException extends RuntimeException {

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
