package dev.efferent.tools.browser;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The environment of the processes the browser toolkit starts: Node.js running Playwright's driver, Chromium,
 * and {@code node --version}. The worker's own environment holds its secrets ({@code EFFERENT_API_TOKEN},
 * {@code EFFERENT_WORKER_SECRET}, …) and whatever else the user exported; a page that exploits the browser, or a
 * driver that logs its environment, must find none of it. So only what Node.js and Chromium need to run, draw a
 * window, find fonts and reach a proxy is passed, and never a name starting with {@code EFFERENT_}.
 *
 * <p>The tools-shell module keeps its own, configurable, list: a provider module exports nothing, and this
 * one is fixed.
 */
final class BrowserEnvironment {
    private static final Set<String> PASSED = Set.of(
            "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "TERM", "TMPDIR",
            "LD_LIBRARY_PATH", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME",
            "XDG_CACHE_HOME", "XDG_DATA_HOME", "DBUS_SESSION_BUS_ADDRESS", "FONTCONFIG_PATH", "FONTCONFIG_FILE",
            "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE",
            "SSL_CERT_DIR", "DEBUG",
            // Windows: Node.js and Chrome look for their profile, temp and program directories here.
            "SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "TEMP", "TMP", "USERPROFILE", "APPDATA",
            "LOCALAPPDATA", "PROGRAMFILES", "PROGRAMFILES(X86)", "PROGRAMW6432", "PROGRAMDATA",
            "NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE");

    private BrowserEnvironment() {
    }

    /** The variables of {@code parent} that are passed on: the list above and Playwright's own settings. */
    static Map<String, String> passed(Map<String, String> parent) {
        Map<String, String> env = new LinkedHashMap<>();
        parent.forEach((name, value) -> {
            String upper = name.toUpperCase(Locale.ROOT);
            if (!upper.startsWith("EFFERENT_") && (PASSED.contains(upper) || upper.startsWith("PLAYWRIGHT_"))) {
                env.put(name, value);
            }
        });
        return env;
    }

    /**
     * The environment to hand Playwright for its driver. Playwright starts the driver with its own copy of this
     * process's environment and lays what it is given on top, so a variable can be emptied but not removed:
     * every variable not {@linkplain #passed passed} is set to the empty string. Chromium, which the driver
     * launches, gets {@link #passed} alone.
     */
    static Map<String, String> forDriver(Map<String, String> parent) {
        Map<String, String> env = new LinkedHashMap<>();
        parent.keySet().forEach(name -> env.put(name, ""));
        env.putAll(passed(parent));
        return env;
    }
}
