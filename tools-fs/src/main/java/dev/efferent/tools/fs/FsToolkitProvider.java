package dev.efferent.tools.fs;

import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.Toolkit;
import dev.efferent.tools.spi.ToolkitProvider;

/** Provides the file toolkit as {@code "fs"}. */
public final class FsToolkitProvider implements ToolkitProvider {

    /** For {@link java.util.ServiceLoader}. */
    public FsToolkitProvider() {
    }

    @Override
    public String name() {
        return "fs";
    }

    @Override
    public Toolkit create(Settings settings) {
        return new FsToolkit(FsLimits.from(settings));
    }
}
