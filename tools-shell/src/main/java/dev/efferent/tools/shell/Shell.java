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

    List<String> command(String command) {
        List<String> argv = new ArrayList<>();
        if (windows) {
            argv.addAll(List.of("cmd.exe", "/c", command));
            return argv;
        }
        setsid.ifPresent(p -> argv.add(p.toString()));
        argv.addAll(List.of("/bin/sh", "-c", command));
        return argv;
    }

    /** Whether the process leads a process group of its own that a group kill reaches. */
    boolean ownProcessGroup() {
        return setsid.isPresent();
    }
}
