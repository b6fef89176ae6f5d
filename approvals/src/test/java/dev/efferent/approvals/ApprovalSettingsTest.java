package dev.efferent.approvals;

import dev.efferent.approvals.policy.Decision;
import dev.efferent.plugin.Settings;
import dev.efferent.plugin.SettingsException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The approvals' settings: defaults, and a clear message for each bad value. */
class ApprovalSettingsTest {
    private static Settings settings(Map<String, String> values) {
        return key -> Optional.ofNullable(values.get(key));
    }

    @Test
    void defaultsAskForTenMinutesThenDeny() {
        ApprovalSettings d = ApprovalSettings.defaults();
        assertEquals(Duration.ofMinutes(10), d.timeout());
        assertEquals(Decision.DENY, d.fallback());
        assertTrue(d.policy().rules().isEmpty());
    }

    @Test
    void badValuesAreNamed() {
        assertEquals("setting 'fallback' must be deny or allow, got 'maybe'", assertThrows(SettingsException.class,
                () -> ApprovalSettings.from(settings(Map.of("fallback", "maybe")))).getMessage());
        assertTrue(assertThrows(SettingsException.class, () -> ApprovalSettings.from(settings(Map.of("rules",
                "perhaps run_shell")))).getMessage().startsWith("setting 'rules': approval rule 'perhaps run_shell' "
                + "cannot be read"));
        assertTrue(assertThrows(SettingsException.class, () -> ApprovalSettings.from(settings(Map.of("timeout",
                "soon")))).getMessage().startsWith("setting 'timeout' must be"));
        assertEquals(2, ApprovalSettings.from(settings(Map.of("rules", "allow run_shell if command^make,deny * on prod")))
                .policy().rules().size());
    }
}
