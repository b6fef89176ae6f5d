package dev.efferent.tools.shell;

import dev.efferent.tools.spi.Settings;
import dev.efferent.tools.spi.ToolException;
import dev.efferent.tools.spi.Toolkit;
import dev.efferent.tools.spi.ToolkitProvider;

import java.time.Duration;
import java.util.List;

/** Provides the shell toolkit as {@code "shell"}. */
public final class ShellToolkitProvider implements ToolkitProvider {

    /** For {@link java.util.ServiceLoader}. */
    public ShellToolkitProvider() {
    }

    @Override
    public String name() {
        return "shell";
    }

    @Override
    public Toolkit create(Settings settings) {
        long maxOutput = settings.getLong("max-output-bytes", 64 * 1024);
        if (maxOutput < 1024 || maxOutput > 64L * 1024 * 1024) {
            throw new ToolException("setting 'tools.shell.max-output-bytes' must be from 1024 to 67108864, got "
                    + maxOutput);
        }
        Duration defaultTimeout = settings.getDuration("default-timeout", Duration.ofSeconds(30));
        if (defaultTimeout.isNegative() || defaultTimeout.isZero()) {
            throw new ToolException("setting 'tools.shell.default-timeout' must be positive, got " + defaultTimeout);
        }
        RunShellTool tool = new RunShellTool(new ShellLimits((int) maxOutput, defaultTimeout), Shell.detect());
        return new ShellToolkit(List.of(tool));
    }
}
