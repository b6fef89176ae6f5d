package dev.efferent.tools.mcp;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Names handed out for a toolkit's life: a tool keeps its name across restarts and list changes, and a name once
 * handed out never goes to another tool, so a queued task cannot end up calling a different tool.
 * MCP tool names as Efferent tool names ({@code [a-z][a-z0-9_]{0,63}}): {@code <server>__<tool>}, letters
 * lower-cased and every other character ({@code -}, {@code .}, {@code /}, a space, …) turned into {@code _}; a name
 * that would start with no letter gets {@code t_}; one too long is cut and keeps its tail's hash; one taken already
 * gets {@code _2}, {@code _3}, ….
 */
final class McpNames {
    private static final int MAX = 64;
    private final Map<String, String> assigned = new HashMap<>();
    private final Set<String> used = new HashSet<>();

    /** The name of {@code tool} of server {@code server}: the one it had, else a new one never handed out. */
    synchronized String name(String server, String tool) {
        return assigned.computeIfAbsent(server + "\u0000" + tool, key -> {
            String name = of(server, tool, used);
            used.add(name);
            return name;
        });
    }

    /** {@code tool} of server {@code server}, as a name none of {@code taken} is. */
    static String of(String server, String tool, Collection<String> taken) {
        String name = plain(server) + "__" + plain(tool);
        if (!Character.isLetter(name.charAt(0))) {
            name = "t_" + name;
        }
        if (name.length() > MAX) {
            String hash = Integer.toHexString(name.hashCode() & 0xfffffff);
            name = name.substring(0, MAX - hash.length() - 1) + "_" + hash;
        }
        String unique = name;
        for (int n = 2; taken.contains(unique); n++) {
            String suffix = "_" + n;
            unique = (name.length() + suffix.length() > MAX ? name.substring(0, MAX - suffix.length()) : name) + suffix;
        }
        return unique;
    }

    private static String plain(String s) {
        String lower = s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        return lower.isEmpty() ? "_" : lower;
    }
}
