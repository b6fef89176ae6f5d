package dev.efferent.plugin;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SettingsTest {

    @Test
    void everyDurationFormIsUnderstood() {
        Map<String, Duration> forms = Map.of("500ms", Duration.ofMillis(500), "30s", Duration.ofSeconds(30),
                "2s", Duration.ofSeconds(2), "5m", Duration.ofMinutes(5), "1h", Duration.ofHours(1),
                "2d", Duration.ofDays(2), "PT30S", Duration.ofSeconds(30), "pt1m", Duration.ofMinutes(1),
                " 10 s ", Duration.ofSeconds(10));
        forms.forEach((text, expected) -> assertEquals(expected,
                Settings.of(Map.of("timeout", text)).getDuration("timeout", Duration.ZERO), text));
        assertEquals(Duration.ofSeconds(7), Settings.empty().getDuration("timeout", Duration.ofSeconds(7)));
    }

    @Test
    void aBadValueNamesTheSettingAndWhatItAccepts() {
        Settings named = new Settings() {
            @Override
            public Optional<String> get(String key) {
                return Optional.of("soon");
            }

            @Override
            public String describe(String key) {
                return "'queue.postgres." + key + "' (EFFERENT_QUEUE_POSTGRES_CONNECT__TIMEOUT)";
            }
        };
        SettingsException e = assertThrows(SettingsException.class,
                () -> named.getDuration("connect-timeout", Duration.ZERO));
        assertEquals("setting 'queue.postgres.connect-timeout' (EFFERENT_QUEUE_POSTGRES_CONNECT__TIMEOUT) must be a "
                + "duration such as 500ms, 30s, 5m, 1h, 2d or ISO-8601 PT30S, got 'soon'", e.getMessage());
        assertEquals("setting 't' must be a duration such as 500ms, 30s, 5m, 1h, 2d or ISO-8601 PT30S, got '30000' "
                + "(a bare number has no unit: write 30000ms)", assertThrows(SettingsException.class,
                () -> Settings.of(Map.of("t", "30000")).getDuration("t", Duration.ZERO)).getMessage());
        assertEquals("setting 'n' must be a whole number, got 'many'",
                assertThrows(SettingsException.class, () -> Settings.of(Map.of("n", "many")).getLong("n", 0))
                        .getMessage());
        assertEquals("setting 'b' must be true or false, got 'yes'",
                assertThrows(SettingsException.class, () -> Settings.of(Map.of("b", "yes")).getBoolean("b", false))
                        .getMessage());
        assertEquals("setting 'i' must be at most 2147483647, got 3000000000",
                assertThrows(SettingsException.class, () -> Settings.of(Map.of("i", "3000000000")).getInt("i", 0))
                        .getMessage());
    }

    @Test
    void listsAreCommaSeparatedAndTrimmed() {
        assertEquals(List.of("a", "b"), Settings.of(Map.of("l", " a, ,b ")).list("l"));
        assertEquals(List.of(), Settings.empty().list("l"));
    }
}
