package dev.efferent.tools.shell;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Runs each command under bubblewrap, as Codex does: the whole system read-only, the tool's roots writable, a
 * private {@code /tmp}, no network unless allowed, its own pid namespace (everything it started dies with it),
 * no capabilities and at most {@link ProcessLimit} processes.
 *
 * @param bwrap   the bubblewrap program
 * @param network whether the command may use the network ({@code tools.shell.network})
 * @param limit   how the number of processes is limited
 */
record BwrapSandbox(Path bwrap, boolean network, ProcessLimit limit) implements Sandbox {
    static final Path USUAL = Path.of("/usr/bin/bwrap");

    /** bubblewrap on {@code path} (the PATH's value), else at {@code usual}. */
    static Optional<Path> find(String path, Path usual) {
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                Path candidate = Path.of(dir.isEmpty() ? "." : dir, "bwrap");
                if (!dir.isEmpty() && Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Files.isExecutable(usual) ? Optional.of(usual) : Optional.empty();
    }

    @Override
    public Launch prepare(List<String> command, List<Path> roots, Path cwd) {
        ProcessLimit.Scope scope = limit.open();
        List<String> argv = new ArrayList<>(scope.outside());
        argv.add(bwrap.toString());
        argv.addAll(List.of("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"));
        // A root process keeps owning these files with its capabilities dropped, and owner rights are enough to
        // write kernel settings (core_pattern runs a program as real root) or crash the machine (sysrq-trigger).
        // bubblewrap means to cover them but does not on every kernel; -try, as not every kernel has both.
        argv.addAll(List.of("--ro-bind-try", "/proc/sys", "/proc/sys",
                "--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger"));
        argv.addAll(List.of("--tmpfs", "/tmp"));
        // After /tmp, so a root below /tmp is bound on top of the private one instead of hidden by it.
        for (Path root : roots) {
            argv.addAll(List.of("--bind", root.toString(), root.toString()));
        }
        argv.addAll(List.of("--chdir", cwd.toString()));
        // Own user namespace: for an ordinary user it makes RLIMIT_NPROC count only the sandbox's processes;
        // for root, any capability held inside is one over the sandbox's namespaces, never over the host's.
        argv.addAll(List.of("--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts"));
        if (!network) {
            argv.add("--unshare-net");
        }
        // bubblewrap leaves root its capabilities unless told; outside a user namespace they are enough to
        // remount / read-write.
        // --new-session stops a command from pushing keystrokes into a terminal (TIOCSTI). The process-group kill
        // on cancel still reaches the sandbox: it kills bubblewrap, whose pid namespace, and so every process in
        // it, dies with it (--die-with-parent covers bubblewrap's own helper).
        argv.addAll(List.of("--cap-drop", "ALL", "--die-with-parent", "--new-session", "--"));
        argv.addAll(scope.inside());
        argv.addAll(command);
        return new Launch(argv, scope);
    }

    @Override
    public String describe() {
        String processes = limit.describe();
        return " Commands run in a sandbox: the file system is read-only except the roots and a private, empty /tmp"
                + (network ? "" : "; there is no network") + (processes.isEmpty() ? "" : "; " + processes) + ".";
    }
}
