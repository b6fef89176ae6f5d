package dev.efferent.tools.shell;

import dev.efferent.tools.spi.ToolException;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The environment a shell command gets: never the worker's or brain's own, which holds their secrets
 * ({@code EFFERENT_API_TOKEN}, {@code EFFERENT_DB_PASSWORD}, {@code EFFERENT_WORKER_SECRET}), but a minimal one:
 * {@code PATH}, {@code HOME}, {@code LANG} and {@code TERM} copied from the parent when set (defaults otherwise),
 * plus what the user lists in {@code tools.shell.env}.
 *
 * <p>An entry of {@code tools.shell.env} is {@code NAME} (pass the parent's value through, if it has one) or
 * {@code NAME=value} (set it). A name starting with {@code EFFERENT_} is refused at start-up rather than dropped:
 * the user asked for it, so a warning in a log would leave them believing the command gets it, and the only
 * reason to list one is to hand a secret to whatever the model runs.
 *
 * @param variables the complete environment of every command, in a stable order
 */
record ChildEnvironment(Map<String, String> variables) {
    static final String KEY = "tools.shell.env";
    private static final String RESERVED_PREFIX = "EFFERENT_";
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    /** Windows programs, cmd.exe itself included, fail in odd ways without these; none of them is a secret. */
    private static final List<String> WINDOWS_BASE = List.of("SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT", "TEMP",
            "TMP", "USERPROFILE");

    ChildEnvironment {
        variables = Collections.unmodifiableMap(new LinkedHashMap<>(variables));
    }

    /**
     * Builds the environment from the user's entries and the parent's environment.
     *
     * @param entries the list at {@code tools.shell.env}
     * @param parent  the environment of this process ({@link System#getenv()} outside tests)
     * @param windows whether commands run under cmd.exe
     * @throws ToolException naming the entry if it is malformed or names an {@code EFFERENT_*} variable
     */
    static ChildEnvironment of(List<String> entries, Map<String, String> parent, boolean windows) {
        Map<String, String> env = new LinkedHashMap<>();
        copyOr(env, parent, "PATH", windows ? "C:\\Windows\\System32;C:\\Windows"
                : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        copyOr(env, parent, "HOME", System.getProperty("user.home"));
        copyOr(env, parent, "LANG", "C.UTF-8");
        // No terminal is attached: "dumb" keeps programs from sending colour and cursor codes into the output.
        copyOr(env, parent, "TERM", "dumb");
        if (windows) {
            WINDOWS_BASE.forEach(name -> copyOr(env, parent, name, null));
        }
        for (String entry : entries) {
            int eq = entry.indexOf('=');
            String name = eq < 0 ? entry.strip() : entry.substring(0, eq).strip();
            if (!NAME.matcher(name).matches()) {
                throw new ToolException("setting '" + KEY + "' has the entry '" + entry + "', which is neither NAME "
                        + "nor NAME=value (a name is letters, digits and _, not starting with a digit)");
            }
            if (name.toUpperCase(Locale.ROOT).startsWith(RESERVED_PREFIX)) {
                throw new ToolException("setting '" + KEY + "' lists '" + name + "': variables named "
                        + RESERVED_PREFIX + "* hold Efferent's own configuration and secrets and are never given to "
                        + "shell commands. Remove it from " + KEY + "; if a command needs the value, give it another "
                        + "name (NAME=value)");
            }
            if (eq >= 0) {
                env.put(name, entry.substring(eq + 1));
            } else if (parent.get(name) != null) {
                env.put(name, parent.get(name));
            }
        }
        return new ChildEnvironment(env);
    }

    /** Replaces {@code target}'s inherited environment with this one. */
    void applyTo(ProcessBuilder target) {
        Map<String, String> env = target.environment();
        env.clear();
        env.putAll(variables);
    }

    private static void copyOr(Map<String, String> env, Map<String, String> parent, String name, String fallback) {
        String value = parent.get(name);
        if (value != null && !value.isEmpty()) {
            env.put(name, value);
        } else if (fallback != null) {
            env.put(name, fallback);
        }
    }
}
