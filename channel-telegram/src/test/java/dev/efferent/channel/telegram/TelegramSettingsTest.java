package dev.efferent.channel.telegram;

import dev.efferent.plugin.Settings;
import dev.efferent.plugin.SettingsException;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TelegramSettingsTest {

    private static Settings settings(Map<String, String> values) {
        return key -> Optional.ofNullable(values.get(key));
    }

    @Test
    void readsTokenFromSettingsOrTheEnvironmentAndTheAllowlist() {
        TelegramSettings s = TelegramSettings.from(settings(Map.of("allowed-chats", "42, 7", "base-url",
                "http://127.0.0.1:9/")), Map.of("TELEGRAM_BOT_TOKEN", "123:abc"));
        assertEquals("123:abc", s.token());
        assertEquals(Set.of(42L, 7L), s.allowedChats());
        assertEquals("http://127.0.0.1:9/bot123:abc/getUpdates", s.method("getUpdates").toString());
    }

    @Test
    void missingTokenOrAllowlistSaysWhatToSet() {
        assertTrue(assertThrows(SettingsException.class, () -> TelegramSettings.from(settings(Map.of("allowed-chats", "1")),
                Map.of())).getMessage().startsWith("the Telegram channel needs a bot token"));
        assertTrue(assertThrows(SettingsException.class, () -> TelegramSettings.from(settings(Map.of("bot-token", "t")),
                Map.of())).getMessage().startsWith("channels.telegram.allowed-chats is empty"));
        assertEquals("channels.telegram.allowed-chats must be numeric chat ids, got [me]",
                assertThrows(SettingsException.class, () -> TelegramSettings.from(settings(Map.of("bot-token", "t",
                        "allowed-chats", "me")), Map.of())).getMessage());
    }
}
