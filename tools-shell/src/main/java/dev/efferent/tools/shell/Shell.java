package dev.efferent.tools.shell;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The platform shell and how to start a command in it. On Unix the command runs under {@code setsid} where
 * available, in a process group of its own, so a kill reaches every process it started.
 *
 * @param windows whether this is Windows ({@code cmd.exe /c}) rather than Unix ({@code /bin/sh -c})
 * @param setsid  the {@code setsid} program, if present
 */
record Shell(boolean windows, Optional<Path> setsid) {

    static Shell detect() {
        boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
        Optional<Path> setsid = windows ? Optional.empty()
                : List.of("/usr/bin/setsid", "/bin/setsid").stream().map(Path::of).filter(Files::isExecutable).findFirst();
        return new Shell(windows, setsid);
    }

    /** The shell running {@code command}: {@code /bin/sh -c command}, or {@code cmd.exe /c command}. */
    List<String> argv(String command) {
        return windows ? List.of("cmd.exe", "/c", command) : List.of("/bin/sh", "-c", command);
    }

    /** Starts {@code argv} (the shell, or a sandbox around it) in a process group of its own where possible. */
    List<String> launch(List<String> argv) {
        List<String> launch = new ArrayList<>();
        setsid.ifPresent(p -> launch.add(p.toString()));
        launch.addAll(argv);
        return launch;
    }

    /** Whether the process leads a process group of its own that a group kill reaches. */
    boolean ownProcessGroup() {
        return setsid.isPresent();
    }
}
