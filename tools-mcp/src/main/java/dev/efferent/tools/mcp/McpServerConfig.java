package dev.efferent.tools.mcp;

import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.ToolException;

import java.io.File;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One MCP server as {@code tools.mcp.<name>.*} describes it: either a command run over stdio ({@code command},
 * {@code args}, {@code env} as {@code KEY=value} pairs, {@code cwd}) or a Streamable HTTP endpoint ({@code url},
 * {@code headers} as {@code Name: value} pairs, e.g. a bearer token).
 *
 * @param name    its name, the prefix of its tools' names
 * @param command the program, empty for a server reached by URL
 * @param args    its arguments
 * @param env     variables added to the few it gets (PATH, HOME, USER, LOGNAME, SHELL, TERM)
 * @param cwd     where it runs
 * @param url     the server's endpoint, for a server reached over HTTP
 * @param headers sent with every request to {@code url}
 * @param start   how long it may take to start and answer {@code initialize} (default 30s)
 * @param ping    how often a server reached by URL is asked whether it is still there (default 30s)
 * @param restartDelay how long after it went a server is first started again (default 1s; doubled per failed try)
 */
record McpServerConfig(String name, String command, List<String> args, Map<String, String> env, Optional<Path> cwd,
                       Optional<URI> url, Map<String, String> headers, Duration start, Duration ping,
                       Duration restartDelay) {

    /** The servers named in {@code servers}, each read from its own keys. */
    static List<McpServerConfig> all(Settings settings) {
        return settings.list("servers").stream().map(name -> of(settings, name)).toList();
    }

    static McpServerConfig of(Settings settings, String name) {
        if (!name.matches("[A-Za-z0-9_-]{1,32}")) {
            throw new ToolException("setting " + settings.describe("servers") + ": '" + name + "' is not a server "
                    + "name (letters, digits, _ and -, at most 32)");
        }
        Duration start = settings.getDuration(name + ".start-timeout", Duration.ofSeconds(30));
        Duration ping = settings.getDuration(name + ".ping-interval", Duration.ofSeconds(30));
        Duration restart = settings.getDuration(name + ".restart-delay", Duration.ofSeconds(1));
        for (String key : List.of("start-timeout", "ping-interval", "restart-delay")) {
            if (settings.getDuration(name + "." + key, Duration.ofSeconds(1)).compareTo(Duration.ofMillis(10)) < 0) {
                throw new ToolException("setting " + settings.describe(name + "." + key) + " must be at least 10ms");
            }
        }
        Optional<String> command = settings.get(name + ".command").map(String::strip).filter(c -> !c.isEmpty());
        Optional<String> url = settings.get(name + ".url").map(String::strip).filter(u -> !u.isEmpty());
        if (command.isPresent() == url.isPresent()) {
            throw new ToolException("MCP server '" + name + "' needs either " + settings.describe(name + ".command")
                    + " (a program to run, e.g. npx or node) or " + settings.describe(name + ".url")
                    + " (a Streamable HTTP endpoint, e.g. http://127.0.0.1:3001/mcp)"
                    + (command.isPresent() ? ", not both" : ""));
        }
        if (url.isPresent()) {
            return new McpServerConfig(name, "", List.of(), Map.of(), Optional.empty(),
                    Optional.of(url(settings, name, url.get())),
                    pairs(settings, name + ".headers", ':', "Name: value"), start, ping, restart);
        }
        String program = command.get();
        if (!runnable(program)) {
            throw new ToolException("MCP server '" + name + "': the command '" + program + "' is not "
                    + (program.contains("/") ? "an executable file" : "on the PATH") + " (" + settings.describe(name
                    + ".command") + ")");
        }
        return new McpServerConfig(name, program, settings.list(name + ".args"),
                pairs(settings, name + ".env", '=', "KEY=value"),
                settings.get(name + ".cwd").filter(c -> !c.isBlank()).map(Path::of), Optional.empty(), Map.of(),
                start, ping, restart);
    }

    /** What it is, for messages: the command line or the URL. */
    String describe() {
        return url.map(URI::toString).orElseGet(() -> String.join(" ", command, String.join(" ", args)).strip());
    }

    private static URI url(Settings settings, String name, String text) {
        try {
            URI uri = new URI(text);
            if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
                return uri;
            }
        } catch (URISyntaxException e) {
            // Said below, with the setting's name.
        }
        throw new ToolException("setting " + settings.describe(name + ".url") + " must be an http or https URL, e.g. "
                + "http://127.0.0.1:3001/mcp, got '" + text + "'");
    }

    private static Map<String, String> pairs(Settings settings, String key, char separator, String form) {
        Map<String, String> pairs = new LinkedHashMap<>();
        for (String pair : settings.list(key)) {
            int at = pair.indexOf(separator);
            if (at <= 0 || pair.substring(0, at).isBlank()) {
                throw new ToolException("setting " + settings.describe(key) + " takes " + form + " pairs, got '"
                        + pair + "'");
            }
            pairs.put(pair.substring(0, at).strip(), pair.substring(at + 1).strip());
        }
        return Map.copyOf(pairs);
    }

    /** Whether {@code program} can be started: an executable path, or a name found on the PATH. */
    private static boolean runnable(String program) {
        if (program.contains("/")) {
            return Files.isExecutable(Path.of(program));
        }
        String path = System.getenv("PATH");
        return path != null && Arrays.stream(path.split(File.pathSeparator))
                .anyMatch(dir -> !dir.isEmpty() && Files.isExecutable(Path.of(dir, program)));
    }
}
