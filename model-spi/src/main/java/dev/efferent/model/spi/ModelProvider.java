package dev.efferent.model.spi;

import dev.efferent.plugin.Settings;

/**
 * Opens a {@link Model}; found with {@link java.util.ServiceLoader} and chosen by {@link #name()} through the
 * {@code model.provider} setting.
 */
public interface ModelProvider {
    /** The name {@code model.provider} selects it by, e.g. {@code openai}. */
    String name();

    /**
     * Opens the model {@code settings} ({@code model.*}) describe.
     *
     * @throws dev.efferent.plugin.SettingsException for a missing or bad setting, naming it
     */
    Model open(Settings settings);
}
