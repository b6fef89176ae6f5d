package dev.efferent.channel.telegram;

import dev.efferent.core.channel.Channel;
import dev.efferent.core.channel.ChannelProvider;
import dev.efferent.tools.spi.Settings;

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
