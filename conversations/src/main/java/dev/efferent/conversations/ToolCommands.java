package dev.efferent.conversations;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Locale;
import java.util.Optional;

/**
 * The commands that run one tool ({@code /run}, {@code /shell}, {@code /read}, {@code /ls}) read as the tool call
 * they ask for: how the chat runs them now, and how a schedule keeps one to run later.
 */
public final class ToolCommands {
    private ToolCommands() {
    }

    /** What a command asked for: a tool call, or what was wrong with it. */
    public sealed interface Parsed {
        /** Run {@code tool} with {@code params}. */
        record Call(String tool, ObjectNode params) implements Parsed {
        }

        /** The command is wrong: {@code text} is its usage and the problem, for the person. */
        record Usage(String text) implements Parsed {
        }
    }

    /** {@code text} as a tool command; empty when it is not one (free text, another command). */
    public static Optional<Parsed> parse(String text) {
        String stripped = text.strip();
        int space = stripped.indexOf(' ');
        String command = (space < 0 ? stripped : stripped.substring(0, space)).toLowerCase(Locale.ROOT);
        String args = space < 0 ? "" : stripped.substring(space + 1).strip();
        var json = CommandHandler.JSON;
        return Optional.ofNullable(switch (command) {
            case "/run" -> run(args);
            case "/shell" -> args.isEmpty() ? usage("/shell <command>", "give the command to run")
                    : new Parsed.Call("run_shell", json.createObjectNode().put("command", args));
            case "/read" -> args.isEmpty() ? usage("/read <path>", "give the file to show")
                    : new Parsed.Call("read_file", json.createObjectNode().put("path", args));
            case "/ls" -> new Parsed.Call("list_dir", json.createObjectNode().put("path", args.isEmpty() ? "." : args)
                    .put("depth", 1));
            default -> null;
        });
    }

    private static Parsed run(String args) {
        if (args.isEmpty()) {
            return usage("/run <tool> <json>", "name the tool");
        }
        int space = args.indexOf(' ');
        String tool = space < 0 ? args : args.substring(0, space);
        String json = space < 0 ? "{}" : args.substring(space + 1).strip();
        JsonNode params;
        try {
            params = CommandHandler.JSON.readTree(json);
        } catch (JsonProcessingException e) {
            return usage("/run <tool> <json>", "the params are not valid JSON (" + e.getOriginalMessage() + ")");
        }
        if (params == null || !params.isObject()) {
            return usage("/run <tool> <json>", "the params must be a JSON object, like {\"path\": \"notes.txt\"}");
        }
        return new Parsed.Call(tool, (ObjectNode) params);
    }

    private static Parsed usage(String usage, String problem) {
        return new Parsed.Usage("Usage: " + usage + " — " + problem + ".");
    }
}
