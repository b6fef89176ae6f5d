package dev.efferent.tools.browser;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

class BrowserEnvironmentTest {
    private static final Map<String, String> PARENT = Map.of("PATH", "/usr/bin", "HOME", "/home/ada",
            "DISPLAY", ":0", "https_proxy", "http://proxy:3128", "PLAYWRIGHT_BROWSERS_PATH", "/opt/pw",
            "EFFERENT_API_TOKEN", "token-1", "EFFERENT_WORKER_SECRET", "secret-2", "efferent_db_password", "pw-3",
            "AWS_SECRET_ACCESS_KEY", "aws-4");

    @Test
    void chromiumGetsWhatItNeedsAndNoSecrets() {
        assertEquals(Map.of("PATH", "/usr/bin", "HOME", "/home/ada", "DISPLAY", ":0", "https_proxy",
                "http://proxy:3128", "PLAYWRIGHT_BROWSERS_PATH", "/opt/pw"), BrowserEnvironment.passed(PARENT));
    }

    @Test
    void theDriverGetsEveryOtherVariableEmptied() {
        Map<String, String> driver = BrowserEnvironment.forDriver(PARENT);
        assertEquals(PARENT.keySet(), driver.keySet());
        assertEquals("", driver.get("EFFERENT_API_TOKEN"));
        assertEquals("", driver.get("EFFERENT_WORKER_SECRET"));
        assertEquals("", driver.get("efferent_db_password"));
        assertEquals("", driver.get("AWS_SECRET_ACCESS_KEY"));
        assertEquals("/home/ada", driver.get("HOME"));
    }
}
