package dev.efferent.tools.spi;

import dev.efferent.plugin.Settings;

/**
 * Creates a {@link Toolkit}. Found by {@link java.util.ServiceLoader}: declare it with
 * {@code provides dev.efferent.tools.spi.ToolkitProvider with ...} in the plugin's {@code module-info}.
 * Implementations need a public no-argument constructor and should do no work in it.
 */
public interface ToolkitProvider {

    /** The toolkit's name, unique among the loaded toolkits, e.g. {@code "fs"}; its settings live under it. */
    String name();

    /**
     * Creates the toolkit.
     *
     * @param settings the toolkit's configuration, {@code tools.<name>.*} in the host's configuration
     * @return the toolkit, never null
     * @throws ToolException if a setting is invalid; the message names the key and the value
     */
    Toolkit create(Settings settings);
}
