package dev.efferent.tools.browser;

import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.Toolkit;
import dev.efferent.tools.spi.ToolkitProvider;

/**
 * Provides the browser toolkit as {@code "browser"}; its settings are {@link BrowserSettings}. Node.js and Chromium
 * never get the worker's environment: Chromium gets only what {@link BrowserEnvironment} passes, Playwright's
 * driver the rest emptied, and no {@code EFFERENT_*} value reaches either.
 */
public final class BrowserToolkitProvider implements ToolkitProvider {

    /** For {@link java.util.ServiceLoader}. */
    public BrowserToolkitProvider() {
    }

    @Override
    public String name() {
        return "browser";
    }

    @Override
    public Toolkit create(Settings settings) {
        return new BrowserToolkit(BrowserSettings.from(settings));
    }
}
