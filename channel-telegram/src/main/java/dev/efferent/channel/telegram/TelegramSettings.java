package dev.efferent.channel.telegram;

import dev.efferent.plugin.Settings;
import dev.efferent.plugin.SettingsException;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The Telegram channel's settings, from {@code channels.telegram.*}.
 *
 * @param baseUrl      {@code base-url}: the Bot API, default {@code https://api.telegram.org}
 * @param token        {@code bot-token} ({@code EFFERENT_CHANNELS_TELEGRAM_BOT__TOKEN}), else {@code TELEGRAM_BOT_TOKEN}
 * @param allowedChats {@code allowed-chats}: the chat ids served; everyone else gets one refusal
 * @param pollTimeout  {@code poll-timeout}: how long one getUpdates call waits for news, default 25s
 */
record TelegramSettings(URI baseUrl, String token, Set<Long> allowedChats, Duration pollTimeout) {

    static TelegramSettings from(Settings s, Map<String, String> env) {
        String token = s.get("bot-token").filter(t -> !t.isBlank())
                .or(() -> Optional.ofNullable(env.get("TELEGRAM_BOT_TOKEN")).filter(t -> !t.isBlank()))
                .orElseThrow(() -> new SettingsException("the Telegram channel needs a bot token: set "
                        + "EFFERENT_CHANNELS_TELEGRAM_BOT__TOKEN (or TELEGRAM_BOT_TOKEN) to the token @BotFather gave you"));
        Set<Long> chats;
        try {
            chats = s.list("allowed-chats").stream().map(Long::parseLong).collect(Collectors.toUnmodifiableSet());
        } catch (NumberFormatException e) {
            throw new SettingsException("channels.telegram.allowed-chats must be numeric chat ids, got "
                    + s.list("allowed-chats"));
        }
        if (chats.isEmpty()) {
            throw new SettingsException("channels.telegram.allowed-chats is empty: list the chat ids the assistant may "
                    + "talk to (a stranger's message is refused and logged with its chat id)");
        }
        String base = s.get("base-url").orElse("https://api.telegram.org").replaceAll("/+$", "");
        URI uri;
        try {
            uri = URI.create(base);
        } catch (IllegalArgumentException e) {
            throw new SettingsException("channels.telegram.base-url is not a URL: '" + base + "'");
        }
        return new TelegramSettings(uri, token, chats, s.getDuration("poll-timeout", Duration.ofSeconds(25)));
    }

    URI method(String name) {
        return URI.create(baseUrl + "/bot" + token + "/" + name);
    }
}
