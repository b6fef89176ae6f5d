package dev.efferent.tools.shell;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Recognises commands that can destroy a system: recursive deletion of the root, the home directory or a
 * top-level system directory; file system creation; shutdown and reboot; writes to raw disks ({@code dd of=},
 * redirection, and disk tools); recursive permission changes of the root; the classic fork bomb.
 * This is a guard against accidents and careless model output, not a sandbox: a determined command can
 * always be written in a way no pattern foresees.
 */
final class DestructiveCommands {
    /**
     * {@code f(){ f|f& };f}. Linear in the command's length, which the model chooses: a name is tried only where a
     * word or a quote starts, and name and body are bounded; unbounded, a long word took minutes (quadratic
     * backtracking) before the command's timeout even started.
     */
    private static final Pattern FORK_BOMB = Pattern.compile("(?<![^\\s(){}|&;'\"`])([^\\s(){}|&;]{1,64}+)"
            + "\\s*+\\(\\s*+\\)\\s*+\\{[^}]{0,256}\\1\\s*+\\|\\s*+\\1\\s*+&[^}]{0,256}}\\s*+;?\\s*+\\1");
    private static final String RAW_DISK = "/dev/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\\d+n\\d+|mmcblk\\d+|disk\\d+"
            + "|md\\d+|dm-\\d+|mapper/|loop\\d+|sr\\d+)";
    private static final Pattern RAW_DISK_REDIRECT = Pattern.compile(">{1,2}\\s*[\"']?" + RAW_DISK);
    private static final Pattern RAW_DISK_ARG = Pattern.compile("[\"']?" + RAW_DISK + ".*");
    private static final Pattern SEPARATORS = Pattern.compile("&&|\\|\\||[;&|\\n`()]|\\$\\(");
    private static final Set<String> PREFIXES = Set.of("sudo", "doas", "env", "command", "exec", "nohup", "time",
            "nice", "ionice", "busybox", "xargs", "builtin");
    private static final Pattern SYSTEM_DIR = Pattern.compile(
            "/+(bin|boot|dev|etc|home|lib|lib32|lib64|opt|proc|root|sbin|srv|sys|usr|var|Users|System|Library)/*\\*?");
    /** Possessive where slashes repeat, so a word of many slashes is matched in linear time. */
    private static final Pattern ROOT_OR_HOME = Pattern.compile(
            "/++\\.?/*+\\*?|~/?\\*?|\\$\\{?HOME}?/?\\*?|/++\\.\\./*+");
    private static final Pattern ROOT = Pattern.compile("/++\\.?/*+\\*?");
    private static final Set<String> SAFE_DEVICES = Set.of("/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr",
            "/dev/tty");
    private static final Set<String> DISK_TOOLS = Set.of("tee", "cp", "shred", "wipefs", "blkdiscard", "fdisk",
            "sfdisk", "parted", "badblocks", "cat");

    private DestructiveCommands() {
    }

    /** Why {@code command} is refused, if it is. */
    static Optional<String> check(String command) {
        if (FORK_BOMB.matcher(command).find()) {
            return Optional.of("it is a fork bomb, which exhausts the machine's processes");
        }
        if (RAW_DISK_REDIRECT.matcher(command).find()) {
            return Optional.of("it redirects output onto a raw disk device, which destroys its data");
        }
        for (String segment : SEPARATORS.split(command)) {
            Optional<String> reason = checkSimpleCommand(words(segment));
            if (reason.isPresent()) {
                return reason;
            }
        }
        return Optional.empty();
    }

    private static Optional<String> checkSimpleCommand(List<String> words) {
        int i = 0;
        while (i < words.size() && (PREFIXES.contains(words.get(i)) || words.get(i).matches("[A-Za-z_][A-Za-z0-9_]*=.*")
                || (i > 0 && words.get(i).startsWith("-")))) {
            i++;
        }
        if (i >= words.size()) {
            return Optional.empty();
        }
        String program = words.get(i);
        program = program.substring(program.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT);
        List<String> args = words.subList(i + 1, words.size());
        return switch (program) {
            case "rm" -> checkRm(args);
            case "chmod", "chown", "chgrp" -> recursive(args) && targets(args).stream().anyMatch(DestructiveCommands::isRoot)
                    ? Optional.of("it changes permissions or owners recursively from the root directory")
                    : Optional.empty();
            case "shutdown", "reboot", "halt", "poweroff" -> Optional.of("it shuts down or restarts the machine");
            case "init", "telinit" -> args.stream().anyMatch(a -> a.equals("0") || a.equals("6"))
                    ? Optional.of("it shuts down or restarts the machine") : Optional.empty();
            case "systemctl" -> args.stream().anyMatch(a -> Set.of("poweroff", "reboot", "halt", "kexec",
                    "suspend", "hibernate").contains(a))
                    ? Optional.of("it shuts down or restarts the machine") : Optional.empty();
            case "dd" -> args.stream().filter(a -> a.startsWith("of=/dev/"))
                    .filter(a -> !SAFE_DEVICES.contains(a.substring(3))).findFirst()
                    .map(a -> "it writes directly to the device " + a.substring(3) + ", which destroys its data");
            case "mke2fs", "mkswap", "mkdosfs", "newfs" -> Optional.of("it creates a file system, erasing what was there");
            default -> {
                if (program.equals("mkfs") || program.startsWith("mkfs.")) {
                    yield Optional.of("it creates a file system, erasing what was there");
                }
                if (DISK_TOOLS.contains(program) && args.stream().anyMatch(a -> RAW_DISK_ARG.matcher(a).matches())) {
                    yield Optional.of("it writes to a raw disk device, which destroys its data");
                }
                yield Optional.empty();
            }
        };
    }

    private static Optional<String> checkRm(List<String> args) {
        if (args.contains("--no-preserve-root")) {
            return Optional.of("it asks rm not to protect the root directory");
        }
        if (!recursive(args)) {
            return Optional.empty();
        }
        for (String target : targets(args)) {
            if (isRoot(target) || ROOT_OR_HOME.matcher(target).matches()) {
                return Optional.of("it deletes '" + target + "' recursively: the root or home directory");
            }
            if (SYSTEM_DIR.matcher(target).matches()) {
                return Optional.of("it deletes the system directory '" + target + "' recursively");
            }
        }
        return Optional.empty();
    }

    private static boolean recursive(List<String> args) {
        for (String a : args) {
            if (a.equals("--")) {
                return false;
            }
            if (a.equals("--recursive") || (a.startsWith("-") && !a.startsWith("--") && (a.indexOf('r') > 0
                    || a.indexOf('R') > 0))) {
                return true;
            }
        }
        return false;
    }

    private static List<String> targets(List<String> args) {
        List<String> targets = new ArrayList<>();
        boolean options = true;
        for (String a : args) {
            if (options && a.equals("--")) {
                options = false;
            } else if (!options || !a.startsWith("-")) {
                targets.add(a);
            }
        }
        return targets;
    }

    private static boolean isRoot(String target) {
        return ROOT.matcher(target).matches();
    }

    /** Splits a simple command into words, dropping quotes (enough to see through {@code "/"} and {@code '/'}). */
    private static List<String> words(String segment) {
        List<String> words = new ArrayList<>();
        for (String w : segment.strip().split("\\s+")) {
            String unquoted = w.replace("\"", "").replace("'", "").replace("\\", "");
            if (!unquoted.isEmpty()) {
                words.add(unquoted);
            }
        }
        return words;
    }
}
