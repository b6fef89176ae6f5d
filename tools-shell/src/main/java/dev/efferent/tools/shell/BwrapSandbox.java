package dev.efferent.tools.shell;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Runs each command under bubblewrap, as Codex does: the whole system read-only, the tool's roots writable, a
 * private {@code /tmp}, an empty {@code /run}, the {@link HiddenPaths} empty, no network unless allowed, its own
 * pid namespace (everything it started dies with it), no capabilities and at most {@link ProcessLimit} processes.
 *
 * @param bwrap   the bubblewrap program
 * @param network whether the command may use the network ({@code tools.shell.network})
 * @param limit   how the number of processes is limited
 * @param hidden  what commands must not read ({@code tools.shell.hide})
 */
record BwrapSandbox(Path bwrap, boolean network, ProcessLimit limit, HiddenPaths hidden) implements Sandbox {
    static final Path USUAL = Path.of("/usr/bin/bwrap");
    private static final Path RUN = Path.of("/run");
    private static final Path VAR_RUN = Path.of("/var/run");
    private static final Path RESOLV_CONF = Path.of("/etc/resolv.conf");
    /**
     * What name resolution needs from systemd-resolved's directory: its resolv.conf files (/etc/resolv.conf often
     * links to one) and its query socket, for nss-resolve. Not the directory: it also holds
     * {@code io.systemd.Resolve.Monitor}, where root may watch every DNS query of the machine.
     */
    private static final List<Path> RESOLVED = List.of(Path.of("/run/systemd/resolve/resolv.conf"),
            Path.of("/run/systemd/resolve/stub-resolv.conf"), Path.of("/run/systemd/resolve/io.systemd.Resolve"));

    /**
     * What is mounted on top of the read-only system, in order of the depth of {@code at}: a mount on a deeper path
     * lies on top of one above it, whatever their kinds, so a root under {@code /tmp}, {@code /run} or a hidden
     * directory stays usable, and a hidden directory inside a root stays hidden. At one path the later layer wins.
     */
    record Mount(Path at, Layer layer, List<String> args) {
    }

    /** Kinds of {@link Mount}, in the order they are applied at the same path. */
    private static final System.Logger LOG = System.getLogger(BwrapSandbox.class.getName());

    enum Layer { PRIVATE, REBOUND, READ_ONLY, HIDDEN, ROOT }

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

    /** The same sandbox with another process limit. */
    BwrapSandbox withLimit(ProcessLimit other) {
        return new BwrapSandbox(bwrap, network, other, hidden);
    }

    @Override
    public Launch prepare(List<String> command, List<Path> roots, Path cwd) {
        List<Mount> mounts = mounts(roots);
        ProcessLimit.Scope scope = limit.open();
        List<String> argv = new ArrayList<>(scope.outside());
        argv.add(bwrap.toString());
        argv.addAll(List.of("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"));
        // A root process keeps owning these files with its capabilities dropped, and owner rights are enough to
        // write kernel settings (core_pattern runs a program as real root) or crash the machine (sysrq-trigger).
        // bubblewrap means to cover them but does not on every kernel; -try, as not every kernel has both.
        argv.addAll(List.of("--ro-bind-try", "/proc/sys", "/proc/sys",
                "--ro-bind-try", "/proc/sysrq-trigger", "/proc/sysrq-trigger"));
        mounts.forEach(m -> argv.addAll(m.args()));
        argv.addAll(List.of("--chdir", cwd.toString()));
        // Own user namespace: for an ordinary user it makes RLIMIT_NPROC count only the sandbox's processes;
        // for root, any capability held inside is one over the sandbox's namespaces, never over the host's.
        argv.addAll(List.of("--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts"));
        if (!network) {
            // Also takes away abstract Unix sockets (X11's, some D-Bus ones): they belong to the network namespace.
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

    private List<Mount> mounts(List<Path> roots) {
        List<Mount> mounts = new ArrayList<>();
        mounts.add(new Mount(Path.of("/tmp"), Layer.PRIVATE, List.of("--tmpfs", "/tmp")));
        // /run holds the sockets of services that act for whoever connects: the user's D-Bus (systemd-run --user
        // runs anything, unconfined), docker.sock, agents. A read-only file system does not stop connect(), and
        // --unshare-net does not cover sockets that are files.
        mounts.add(new Mount(RUN, Layer.PRIVATE, List.of("--tmpfs", RUN.toString())));
        if (Files.isDirectory(VAR_RUN, LinkOption.NOFOLLOW_LINKS)) {
            // Older systems keep /var/run apart from /run instead of linking it there.
            mounts.add(new Mount(VAR_RUN, Layer.PRIVATE, List.of("--tmpfs", VAR_RUN.toString())));
        }
        if (network) {
            for (Path file : resolverFiles()) {
                mounts.add(new Mount(file, Layer.REBOUND, List.of("--ro-bind-try", file.toString(), file.toString())));
            }
        }
        mounts.addAll(hidden.mounts());
        for (Path root : roots) {
            mounts.add(new Mount(root, Layer.ROOT, List.of("--bind", root.toString(), root.toString())));
            mounts.addAll(dotfiles(root));
        }
        // Stable: mounts of one depth and layer keep the order they were listed in.
        mounts.sort(Comparator.comparingInt((Mount m) -> m.at().getNameCount()).thenComparing(Mount::layer));
        return mounts;
    }

    /**
     * With the home directory as a root (the default), its dotfiles and dot-directories stay read-only, as they are
     * when the root is elsewhere: a command may not plant a line in {@code ~/.bashrc} or a git hook in
     * {@code ~/.config} that runs later, unconfined. Links among them are left as they are (a mount over a link
     * would land on its target).
     */
    private List<Mount> dotfiles(Path root) {
        List<Mount> mounts = new ArrayList<>();
        Path home;
        try {
            home = Path.of(System.getProperty("user.home")).toRealPath();
        } catch (IOException e) {
            return mounts;
        }
        if (!root.equals(home)) {
            return mounts;
        }
        // Hidden paths as mounted (resolved), and as configured: an entry under either stays hidden.
        List<Path> hiddenAt = new ArrayList<>(hidden.paths());
        hidden.mounts().forEach(m -> hiddenAt.add(m.at()));
        try (var entries = Files.newDirectoryStream(home, ".*")) {
            for (Path entry : entries) {
                boolean hiddenHere = hiddenAt.stream().anyMatch(entry::startsWith);
                if (!hiddenHere && !Files.isSymbolicLink(entry)) {
                    // -try: a dotfile removed since it was listed must not fail the command.
                    mounts.add(new Mount(entry, Layer.READ_ONLY, List.of("--ro-bind-try", entry.toString(),
                            entry.toString())));
                }
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "Could not list the dotfiles of {0} to keep them read-only in the "
                    + "sandbox: {1}", home, e.getMessage());
        }
        return mounts;
    }

    /** What DNS needs back from /run: systemd-resolved's files and wherever /etc/resolv.conf leads under /run. */
    private static List<Path> resolverFiles() {
        List<Path> files = new ArrayList<>(RESOLVED);
        try {
            Path real = RESOLV_CONF.toRealPath();
            if (real.startsWith(RUN) && !files.contains(real)) {
                files.add(real);
            }
        } catch (IOException e) {
            // No /etc/resolv.conf, or a link to nowhere: there is nothing under /run to bring back for it.
        }
        return files;
    }

    @Override
    public String describe() {
        String processes = limit.describe();
        return " Hidden from commands (they appear empty): /run" + (hidden.entries().isEmpty() ? "" : ", "
                + hidden.shown()) + "."
                + " Commands run in a sandbox: the file system is read-only except the roots and a private, empty /tmp"
                + (network ? "" : "; there is no network") + (processes.isEmpty() ? "" : "; " + processes) + ".";
    }
}
