package dev.efferent.tools.shell;

import dev.efferent.tools.spi.ToolException;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Where a shell command runs: in a {@link BwrapSandbox}, or {@link Unconfined} with the worker's own rights.
 * The destructive-command check runs first either way; it catches accidents, the sandbox contains the rest.
 */
sealed interface Sandbox permits BwrapSandbox, Sandbox.Unconfined {
    String KEY = "tools.shell.sandbox";
    String INSTALL = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; "
            + "Arch: pacman -S bubblewrap)";
    int TRIAL_SECONDS = 10;
    String USERNS = "check that user namespaces are allowed (sysctl user.max_user_namespaces above 0; on Ubuntu "
            + "24.04+ the AppArmor profile for bwrap, or kernel.apparmor_restrict_unprivileged_userns=0)";

    /**
     * The command line that runs {@code command} confined to {@code roots}, starting in {@code cwd}; close the
     * launch once the command and its processes are gone.
     */
    Launch prepare(List<String> command, List<Path> roots, Path cwd);

    /** A sentence for the tool's description telling the model what it cannot do, or empty. */
    String describe();

    /** A command line and what to clean up after it ran. */
    record Launch(List<String> argv, ProcessLimit.Scope scope) implements AutoCloseable {
        @Override
        public void close() {
            scope.close();
        }
    }

    /** Runs commands as they are, with the worker's rights. */
    record Unconfined() implements Sandbox {
        @Override
        public Launch prepare(List<String> command, List<Path> roots, Path cwd) {
            return new Launch(command, ProcessLimit.Scope.NONE);
        }

        @Override
        public String describe() {
            return "";
        }
    }

    /**
     * The sandbox {@code tools.shell.sandbox} asks for where bubblewrap is not installed: unconfined with one warning
     * when the setting is unset, a failed start-up when it is {@code bwrap}.
     *
     * @param mode the setting's value, empty when unset
     * @throws ToolException naming the setting when the value is unknown or bubblewrap is asked for
     */
    static Sandbox withoutBubblewrap(String mode) {
        String chosen = chosen(mode);
        System.Logger log = System.getLogger(Sandbox.class.getName());
        if (chosen.equals("none")) {
            log.log(Level.INFO, "Shell commands run unconfined ({0}: none)", KEY);
            return new Unconfined();
        }
        if (chosen.equals("bwrap")) {
            throw new ToolException("setting '" + KEY + "' is bwrap, but bubblewrap was found neither on the PATH "
                    + "nor at " + BwrapSandbox.USUAL + ": " + INSTALL + ", or set " + KEY + ": none to run "
                    + "shell commands unconfined");
        }
        String os = System.getProperty("os.name", "");
        log.log(Level.WARNING, (os.startsWith("Linux") ? "bubblewrap (bwrap) was found neither on the PATH nor at "
                + BwrapSandbox.USUAL : "there is no sandbox for shell commands on " + os + " (bubblewrap is "
                + "Linux-only)") + ": shell commands run UNCONFINED, able to change every file the worker can and "
                + "to use the network. " + (os.startsWith("Linux") ? "To sandbox them, " + INSTALL + ". " : "")
                + "To accept this, set " + KEY + ": none");
        return new Unconfined();
    }

    /**
     * The sandbox {@code tools.shell.sandbox} asks for where bubblewrap is installed. Unset means bubblewrap when it
     * works, else unconfined with one warning; {@code bwrap} without a working bubblewrap fails start-up.
     *
     * @param mode    the setting's value, empty when unset
     * @param bwrap   the bubblewrap program
     * @param network {@code tools.shell.network}
     * @param hidden  {@code tools.shell.hide}
     * @param limit   makes the process limit; called only when bubblewrap is used
     * @throws ToolException naming the setting when the value is unknown or bubblewrap is asked for and unusable
     */
    static Sandbox choose(String mode, Path bwrap, boolean network, HiddenPaths hidden,
            Supplier<ProcessLimit> limit) {
        String chosen = chosen(mode);
        System.Logger log = System.getLogger(Sandbox.class.getName());
        if (chosen.equals("none")) {
            log.log(Level.INFO, "Shell commands run unconfined ({0}: none)", KEY);
            return new Unconfined();
        }
        boolean explicit = chosen.equals("bwrap");
        BwrapSandbox sandbox = new BwrapSandbox(bwrap, network, limit.get(), hidden);
        Optional<String> failure = selfTest(sandbox);
        if (failure.isPresent() && !(sandbox.limit() instanceof ProcessLimit.Unenforced)) {
            // The limit itself may be what fails (a cgroup that refuses forks, RLIMIT_NPROC counting more than the
            // sandbox): then keep the sandbox without it, which start-up reports below, rather than no sandbox.
            BwrapSandbox unlimited = sandbox.withLimit(new ProcessLimit.Unenforced(sandbox.limit().max(),
                    "a trial run under " + sandbox.limit() + " failed (" + failure.get() + ") and one without it "
                    + "worked"));
            if (selfTest(unlimited).isEmpty()) {
                sandbox = unlimited;
                failure = Optional.empty();
            }
        }
        if (failure.isPresent()) {
            String why = "bubblewrap at " + bwrap + " cannot make a sandbox here: " + failure.get();
            if (explicit) {
                throw new ToolException("setting '" + KEY + "' is bwrap, but " + why + ". " + USERNS + ", or set "
                        + KEY + ": none to run shell commands unconfined");
            }
            log.log(Level.WARNING, why + ". Shell commands run UNCONFINED, able to change every file the worker "
                    + "can and to use the network. To sandbox them: " + USERNS + ". To accept this, set " + KEY
                    + ": none");
            return new Unconfined();
        }
        if (sandbox.limit() instanceof ProcessLimit.Unenforced u) {
            log.log(Level.WARNING, "tools.shell.max-processes ({0}) cannot be enforced: {1}. A sandboxed command "
                    + "can start processes until the machine runs out", String.valueOf(u.max()), u.reason());
        }
        log.log(Level.INFO, "Shell commands run under bubblewrap ({0}), network {1}, process limit: {2}, hidden: "
                + "/run{3}", bwrap, network ? "allowed" : "blocked", sandbox.limit(),
                hidden.entries().isEmpty() ? "" : ", " + hidden.shown());
        return sandbox;
    }

    /** The setting's value as {@code none}, {@code bwrap} or empty (unset); any other value fails, named. */
    private static String chosen(String mode) {
        String chosen = mode.strip().toLowerCase(Locale.ROOT);
        if (!chosen.isEmpty() && !chosen.equals("none") && !chosen.equals("bwrap")) {
            throw new ToolException("setting '" + KEY + "' must be bwrap or none, got '" + mode + "'");
        }
        return chosen;
    }

    /**
     * Runs {@code /bin/true} in the sandbox, forked by a shell so that a process limit that breaks forks is caught:
     * bubblewrap is installed on many machines where namespaces are denied.
     */
    private static Optional<String> selfTest(BwrapSandbox sandbox) {
        try (Launch launch = sandbox.prepare(List.of("/bin/sh", "-c", "/bin/true & wait $!"), List.of(),
                Path.of("/"))) {
            ProcessBuilder builder = new ProcessBuilder(launch.argv()).redirectErrorStream(true);
            builder.environment().keySet().retainAll(Set.of("PATH"));
            Process probe = builder.start();
            CompletableFuture<String> output = new CompletableFuture<>();
            Thread.ofVirtual().name("bwrap-trial-output").start(() -> output.complete(read(probe)));
            if (!probe.waitFor(TRIAL_SECONDS, TimeUnit.SECONDS)) {
                probe.destroyForcibly();
                return Optional.of("a trial run of /bin/true did not finish in " + TRIAL_SECONDS + "s");
            }
            // A process that outlived bubblewrap could hold the pipe open for ever: wait a moment for the rest.
            String text = output.completeOnTimeout("(no output)", 1, TimeUnit.SECONDS).join().strip();
            return probe.exitValue() == 0 ? Optional.empty()
                    : Optional.of("a trial run of /bin/true exited with " + probe.exitValue() + ": " + text);
        } catch (IOException | ToolException e) {
            return Optional.of("a trial run of /bin/true could not start: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted during a trial run");
        }
    }

    private static String read(Process process) {
        try {
            return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(output unreadable: " + e.getMessage() + ")";
        }
    }
}
