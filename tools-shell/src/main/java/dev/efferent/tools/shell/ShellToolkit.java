package dev.efferent.tools.shell;

import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.Toolkit;

import java.util.List;

/** The shell toolkit: run_shell. */
record ShellToolkit(List<Tool> tools) implements Toolkit {
    @Override
    public String name() {
        return "shell";
    }
}
