/**
 * Telegram as a chat channel: Bot API long polling ({@code getUpdates}) in, {@code sendMessage} out, only for
 * the chats on the allowlist.
 *
 * @provides dev.efferent.channel.spi.ChannelProvider
 */
module efferent.channel.telegram {
    requires efferent.channel.spi;
    requires java.net.http;
    requires com.fasterxml.jackson.databind;

    provides dev.efferent.channel.spi.ChannelProvider
            with dev.efferent.channel.telegram.TelegramChannelProvider;
}
