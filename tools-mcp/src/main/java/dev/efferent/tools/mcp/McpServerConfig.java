package dev.efferent.tools.mcp;

import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.ToolException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One MCP server as {@code tools.mcp.<name>.*} describes it: a command run over stdio ({@code command}, {@code args},
 * {@code env} as {@code KEY=value} pairs, {@code cwd}).
 *
 * @param name    its name, the prefix of its tools' names
 * @param command the program
 * @param args    its arguments
 * @param env     variables added to the few it gets (PATH, HOME, LANG and what the SDK passes on)
 * @param cwd     where it runs
 * @param start   how long it may take to start and answer {@code initialize} (default 30s)
 */
record McpServerConfig(String name, String command, List<String> args, Map<String, String> env, Optional<Path> cwd,
                       Duration start) {

    /** The servers named in {@code servers}, each read from its own keys. */
    static List<McpServerConfig> all(Settings settings) {
        return settings.list("servers").stream().map(name -> of(settings, name)).toList();
    }

    static McpServerConfig of(Settings settings, String name) {
        if (!name.matches("[A-Za-z0-9_-]{1,32}")) {
            throw new ToolException("setting " + settings.describe("servers") + ": '" + name + "' is not a server "
                    + "name (letters, digits, _ and -, at most 32)");
        }
        String command = settings.get(name + ".command").filter(c -> !c.isBlank()).orElseThrow(() ->
                new ToolException("MCP server '" + name + "' needs " + settings.describe(name + ".command")
                        + ": the program to run, e.g. npx or node"));
        Map<String, String> env = new LinkedHashMap<>();
        for (String pair : settings.list(name + ".env")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new ToolException("setting " + settings.describe(name + ".env") + " takes KEY=value pairs, got '"
                        + pair + "'");
            }
            env.put(pair.substring(0, eq), pair.substring(eq + 1));
        }
        String program = command.strip();
        if (!runnable(program)) {
            throw new ToolException("MCP server '" + name + "': the command '" + program + "' is not "
                    + (program.contains("/") ? "an executable file" : "on the PATH") + " (" + settings.describe(name
                    + ".command") + ")");
        }
        return new McpServerConfig(name, program, settings.list(name + ".args"), Map.copyOf(env),
                settings.get(name + ".cwd").filter(c -> !c.isBlank()).map(Path::of),
                settings.getDuration(name + ".start-timeout", Duration.ofSeconds(30)));
    }

    /** Whether {@code program} can be started: an executable path, or a name found on the PATH. */
    private static boolean runnable(String program) {
        if (program.contains("/")) {
            return Files.isExecutable(Path.of(program));
        }
        String path = System.getenv("PATH");
        return path != null && Arrays.stream(path.split(java.io.File.pathSeparator))
                .anyMatch(dir -> !dir.isEmpty() && Files.isExecutable(Path.of(dir, program)));
    }
}
