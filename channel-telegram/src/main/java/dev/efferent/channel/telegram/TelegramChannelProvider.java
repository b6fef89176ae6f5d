package dev.efferent.channel.telegram;

import dev.efferent.channel.spi.Channel;
import dev.efferent.channel.spi.ChannelProvider;
import dev.efferent.plugin.Settings;

/** Provides the Telegram channel as {@code "telegram"}. */
public final class TelegramChannelProvider implements ChannelProvider {

    /** For {@link java.util.ServiceLoader}. */
    public TelegramChannelProvider() {
    }

    @Override
    public String name() {
        return "telegram";
    }

    @Override
    public Channel create(Settings settings) {
        return new TelegramChannel(TelegramSettings.from(settings, System.getenv()));
    }
}
