package dev.efferent.tools.browser;

import dev.efferent.plugin.Settings;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The browser toolkit's settings, from {@code tools.browser.*}.
 *
 * @param executable     {@code executable}: the Chromium to drive; found on the machine when unset
 * @param node           {@code node}: the Node.js (18+) Playwright's driver runs on; {@code node} on the PATH when unset
 * @param headless       {@code headless}: no window (default true)
 * @param idleTimeout    {@code idle-timeout}: a conversation's browser context, and then the browser, close after
 *                       this long unused (default 10m)
 * @param screenshotsDir {@code screenshots-dir}: where screenshots are saved (default ~/.efferent/screenshots)
 * @param maxTextChars   {@code max-text-chars}: longest text browser_text returns (default 20000)
 * @param actionTimeout  {@code action-timeout}: how long a click, type or wait looks for its element (default 10s)
 */
record BrowserSettings(Optional<Path> executable, Optional<Path> node, boolean headless, Duration idleTimeout,
                       Path screenshotsDir, int maxTextChars, Duration actionTimeout) {

    static BrowserSettings from(Settings s) {
        return new BrowserSettings(
                s.get("executable").map(Path::of),
                s.get("node").map(Path::of),
                s.getBoolean("headless", true),
                s.getDuration("idle-timeout", Duration.ofMinutes(10)),
                s.get("screenshots-dir").map(BrowserSettings::home)
                        .orElse(Path.of(System.getProperty("user.home"), ".efferent", "screenshots")),
                (int) s.getLong("max-text-chars", 20_000),
                s.getDuration("action-timeout", Duration.ofSeconds(10)));
    }

    private static Path home(String path) {
        return Path.of(path.equals("~") || path.startsWith("~/") ? System.getProperty("user.home") + path.substring(1)
                : path);
    }
}
