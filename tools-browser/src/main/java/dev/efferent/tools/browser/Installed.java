package dev.efferent.tools.browser;

import dev.efferent.tools.spi.ToolException;

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

    static Path chromium(Optional<Path> configured) {
        if (configured.isPresent()) {
            if (Files.isExecutable(configured.get())) {
                return configured.get();
            }
            throw new ToolException("tools.browser.executable '" + configured.get() + "' is not an executable file");
        }
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

    /** Node.js for Playwright's driver, or empty when Playwright's own bundle is on the module path. */
    static Optional<Path> node(Optional<Path> configured) {
        if (configured.isPresent()) {
            if (majorVersion(configured.get()) >= 18) {
                return configured;
            }
            throw new ToolException("tools.browser.node '" + configured.get() + "' is not Node.js 18 or newer");
        }
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
        for (String dir : path.split(java.io.File.pathSeparator)) {
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
