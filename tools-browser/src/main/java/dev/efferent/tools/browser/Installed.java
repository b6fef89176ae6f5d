package dev.efferent.tools.browser;

import dev.efferent.tools.spi.ToolException;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Finds what the toolkit runs on: the machine's Chromium and Node.js. Nothing is ever downloaded. */
final class Installed {
    private static final List<String> CHROMIUM_NAMES = List.of("chromium", "chromium-browser", "google-chrome",
            "google-chrome-stable", "chrome");
    private static final List<String> CHROMIUM_PATHS = List.of("/usr/bin/chromium", "/usr/bin/chromium-browser",
            "/snap/bin/chromium", "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable",
            "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
            "/Applications/Chromium.app/Contents/MacOS/Chromium",
            "C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe");

    private Installed() {
    }

    /** The Chromium {@code tools.browser.executable} names, checked. */
    static Path chromium(Path configured) {
        if (Files.isExecutable(configured)) {
            return configured;
        }
        throw new ToolException("tools.browser.executable '" + configured + "' is not an executable file");
    }

    /** The Chromium or Chrome found on the PATH or at its usual places. */
    static Path chromium() {
        List<String> tried = new ArrayList<>();
        for (String name : CHROMIUM_NAMES) {
            Optional<Path> onPath = onPath(name);
            if (onPath.isPresent()) {
                return onPath.get();
            }
            tried.add(name + " on the PATH");
        }
        for (String path : CHROMIUM_PATHS) {
            if (Files.isExecutable(Path.of(path))) {
                return Path.of(path);
            }
            tried.add(path);
        }
        throw new ToolException("no Chromium or Chrome found (tried " + String.join(", ", tried) + "). Install one "
                + "(Debian/Ubuntu: apt-get install chromium; macOS: Google Chrome) or set tools.browser.executable");
    }

    /** The Node.js {@code tools.browser.node} names, checked. */
    static Path node(Path configured) {
        if (majorVersion(configured) >= 18) {
            return configured;
        }
        throw new ToolException("tools.browser.node '" + configured + "' is not Node.js 18 or newer");
    }

    /** Node.js for Playwright's driver from the PATH, or empty when Playwright's own bundle is on the module path. */
    static Optional<Path> node() {
        Optional<Path> node = onPath(isWindows() ? "node.exe" : "node").filter(n -> majorVersion(n) >= 18);
        if (node.isPresent()) {
            return node;
        }
        if (Installed.class.getClassLoader().getResource("driver/" + platform() + "/" + (isWindows() ? "node.exe" : "node"))
                != null) {
            return Optional.empty();
        }
        throw new ToolException("the browser tools need Node.js 18 or newer for Playwright's driver, and none was "
                + "found: install nodejs, set tools.browser.node, or put Playwright's driver-bundle jar beside the "
                + "toolkit");
    }

    private static int majorVersion(Path node) {
        try {
            ProcessBuilder builder = new ProcessBuilder(node.toString(), "--version").redirectErrorStream(true);
            builder.environment().clear();
            builder.environment().putAll(BrowserEnvironment.passed(System.getenv()));
            Process p = builder.start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            if (!p.waitFor(10, TimeUnit.SECONDS) || !out.startsWith("v")) {
                return -1;
            }
            return Integer.parseInt(out.substring(1, out.indexOf('.')));
        } catch (IOException | RuntimeException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static Optional<Path> onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, name);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    private static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        boolean arm = System.getProperty("os.arch", "").contains("aarch64");
        if (os.contains("mac")) {
            return arm ? "mac-arm64" : "mac";
        }
        return os.contains("win") ? "win32_x64" : arm ? "linux-arm64" : "linux";
    }

    private static boolean isWindows() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
    }
}
