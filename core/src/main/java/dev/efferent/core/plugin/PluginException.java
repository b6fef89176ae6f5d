package dev.efferent.core.plugin;

/** A plugin could not be found, loaded or chosen. The message names the plugin, its module and the cause. */
public class PluginException extends RuntimeException {

    public PluginException(String message) {
        super(message);
    }

    public PluginException(String message, Throwable cause) {
        super(message, cause);
    }
}
