package dev.efferent.systemtests;

import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Playwright;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** A real headless Chromium, the system's own (Debian's {@code chromium}), driven by Playwright. */
final class Browser implements AutoCloseable {
    private static final List<Path> CANDIDATES = List.of(Path.of("/usr/bin/chromium"),
            Path.of("/usr/bin/chromium-browser"), Path.of("/usr/bin/google-chrome"));

    final Playwright playwright;
    final com.microsoft.playwright.Browser browser; // qualified: a clash with dev.efferent.systemtests.Browser

    Browser() {
        Path chromium = CANDIDATES.stream().filter(Files::isExecutable).findFirst().orElseThrow(() -> new AssertionError(
                "no Chromium found at " + CANDIDATES + "; install it (apt-get install -y chromium), as .ci/run does"));
        playwright = Playwright.create(new Playwright.CreateOptions()
                .setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")));
        browser = playwright.chromium().launch(new BrowserType.LaunchOptions()
                .setExecutablePath(chromium)
                .setHeadless(true)
                .setArgs(List.of("--no-sandbox", "--disable-gpu", "--disable-background-networking",
                        "--disable-component-update", "--no-first-run", "--disable-sync")));
    }

    @Override
    public void close() {
        browser.close();
        playwright.close();
    }
}
