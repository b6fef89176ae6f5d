/**
 * run_shell: a command through the platform shell, with a timeout, an output cap, process-tree kill on cancel,
 * refusal of destructive commands, an environment without the worker's secrets and, on Linux, a bubblewrap
 * sandbox. Settings: see {@code ShellToolkitProvider}.
 *
 * @provides dev.efferent.tools.spi.ToolkitProvider
 */
module efferent.tools.shell {
    requires efferent.tools.spi;

    provides dev.efferent.tools.spi.ToolkitProvider
            with dev.efferent.tools.shell.ShellToolkitProvider;
}
