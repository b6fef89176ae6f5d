package dev.efferent.core.channel;

import dev.efferent.tools.spi.Settings;

/**
 * Creates a {@link Channel}. Found by {@link java.util.ServiceLoader}: declare it with
 * {@code provides dev.efferent.core.channel.ChannelProvider with ...}. A channel runs when the brain's
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
     * @throws dev.efferent.tools.spi.ToolException naming the key, for a missing or bad setting
     */
    Channel create(Settings settings);
}
