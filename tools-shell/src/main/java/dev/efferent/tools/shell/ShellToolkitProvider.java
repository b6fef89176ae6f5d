package dev.efferent.tools.shell;

import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.ToolException;
import dev.efferent.tools.spi.Toolkit;
import dev.efferent.tools.spi.ToolkitProvider;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Provides the shell toolkit as {@code "shell"}. Its settings, under {@code tools.shell}:
 * <ul>
 * <li>{@code max-output-bytes}: most bytes kept of stdout, and of stderr (default 65536).</li>
 * <li>{@code default-timeout}: timeout of a command that names none (default 30s).</li>
 * <li>{@code env}: variables commands get besides {@code PATH}, {@code HOME}, {@code LANG} and {@code TERM}
 *     (which are copied from the worker's environment, or default to a standard PATH, the user's home,
 *     {@code C.UTF-8} and {@code dumb}). A list (a YAML sequence, or comma-separated) of {@code NAME}, passing the
 *     worker's value through when it has one, or {@code NAME=value}, setting it; a later entry wins. Nothing
 *     else of the worker's environment reaches a command. A name starting with {@code EFFERENT_} fails
 *     start-up: those hold Efferent's secrets. Default: empty.</li>
 * <li>{@code sandbox}: {@code bwrap} runs every command under bubblewrap (the system read-only, the tool's roots
 *     writable, a private {@code /tmp}, an empty {@code /run} so the sockets of the user's and the system's
 *     services are out of reach, the {@code hide} list empty, own pid namespace, no capabilities); {@code none}
 *     runs it unconfined.
 *     Default: {@code bwrap} when bubblewrap is on the PATH or at {@code /usr/bin/bwrap} and works, else
 *     {@code none} with a warning at start-up. {@code bwrap} without a working bubblewrap fails start-up.</li>
 * <li>{@code network}: whether sandboxed commands may use the network (default false; unconfined ones always
 *     can). When true, systemd-resolved's files under {@code /run} and the file {@code /etc/resolv.conf} leads to
 *     there are brought back, read-only, so names resolve.</li>
 * <li>{@code hide}: files and directories sandboxed commands must not read: each directory appears empty, each file
 *     as {@code /dev/null}. A list (a YAML sequence, or comma-separated) of absolute paths or paths starting with
 *     {@code ~/}; missing ones are skipped, a root inside a hidden directory stays usable. Default: {@code
 *     ~/.efferent, ~/.ssh, ~/.gnupg, ~/.aws, ~/.azure, ~/.config/gcloud, ~/.kube, ~/.docker, ~/.config/gh,
 *     ~/.netrc, ~/.git-credentials, ~/.pypirc, ~/.cargo/credentials.toml}: Efferent's own state and files that
 *     hold only credentials (see {@code HiddenPaths}). Setting it replaces the default (list the defaults to
 *     add to them); {@code hide: []} or {@code hide: ""} hides nothing.</li>
 * <li>{@code max-processes}: most processes a sandboxed command may have at once, bubblewrap's own two included
 *     (default 256, from 16 to 1000000). Enforced by {@code RLIMIT_NPROC} in the sandbox's user namespace for an
 *     ordinary user on Linux 5.14 or later, by a pids cgroup per command for root; start-up warns when neither is
 *     possible, or when a trial fork under the limit fails (the sandbox is then kept without it).</li>
 * </ul>
 */
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
        long maxProcesses = settings.getLong("max-processes", 256);
        if (maxProcesses < 16 || maxProcesses > 1_000_000) {
            throw new ToolException("setting 'tools.shell.max-processes' must be from 16 to 1000000, got "
                    + maxProcesses);
        }
        Shell shell = Shell.detect();
        Map<String, String> parent = System.getenv();
        ChildEnvironment environment = ChildEnvironment.of(settings.list("env"), parent, shell.windows());
        HiddenPaths hidden = HiddenPaths.from(settings, Path.of(System.getProperty("user.home")));
        String mode = settings.get("sandbox").orElse("");
        boolean network = settings.getBoolean("network", false);
        Sandbox sandbox = BwrapSandbox.find(parent.get("PATH"), BwrapSandbox.USUAL)
                .map(bwrap -> Sandbox.choose(mode, bwrap, network, hidden,
                        () -> ProcessLimit.detect((int) maxProcesses)))
                .orElseGet(() -> Sandbox.withoutBubblewrap(mode));
        RunShellTool tool = new RunShellTool(new ShellLimits((int) maxOutput, defaultTimeout), shell, environment,
                sandbox);
        return new ShellToolkit(List.of(tool));
    }
}
