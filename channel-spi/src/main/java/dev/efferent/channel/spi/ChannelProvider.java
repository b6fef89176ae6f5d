package dev.efferent.channel.spi;

import dev.efferent.plugin.Settings;

/**
 * Creates a {@link Channel}. Found by {@link java.util.ServiceLoader}: declare it with
 * {@code provides dev.efferent.channel.spi.ChannelProvider with ...}. A channel runs when the brain's
 * configuration sets {@code channels.<name>.enabled: true}.
 */
public interface ChannelProvider {

    /** The channel's name, e.g. {@code "telegram"}; its settings live under {@code channels.<name>}. */
    String name();

    /**
     * Creates the channel.
     *
     * @param settings {@code channels.<name>.*}
     * @return the channel, not yet started
     * @throws dev.efferent.plugin.SettingsException naming the key, for a missing or bad setting
     */
    Channel create(Settings settings);
}
