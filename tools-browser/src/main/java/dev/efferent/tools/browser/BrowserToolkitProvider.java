package dev.efferent.tools.browser;

import dev.efferent.tools.spi.Settings;
import dev.efferent.tools.spi.Toolkit;
import dev.efferent.tools.spi.ToolkitProvider;

/** Provides the browser toolkit as {@code "browser"}. */
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
