package dev.efferent.approvals.policy;

import com.fasterxml.jackson.databind.JsonNode;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One rule of the policy, written {@code <allow|ask|deny> <tool> [on <machine>] [if <argument><op><value>]}, e.g.
 * {@code allow run_shell if command^make test}, {@code ask write_file if path=/etc/**}, {@code deny * on prod}.
 * Tool and machine are globs ({@code *}); the argument test is {@code =} a glob ({@code *} within a path segment,
 * {@code **} across them), {@code ^} a prefix (whole words), or {@code ~} a regular expression (the whole value).
 * {@code if #<hash>} covers one exact call ({@link Call#hash()}), as "allow always" adds; text in parentheses after
 * it says what the call was and is not read.
 *
 * @param decision what a matching call gets
 * @param tool     which tools, as a glob
 * @param machine  which machines, as a glob; empty for any
 * @param argument the argument's name and the compiled test of its value; empty for any call
 * @param exact    the {@link Call#hash()} of the one call it covers; empty for a rule by pattern
 * @param text     the rule as written, shown to people
 */
public record Rule(Decision decision, Pattern tool, Optional<Pattern> machine, Optional<ArgumentTest> argument,
                   Optional<String> exact, String text) {
    private static final Pattern EXACT = Pattern.compile("#([0-9a-f]{16})(\\s+\\(.*\\))?", Pattern.DOTALL);
    /** Characters that chain, redirect or substitute in a shell: an allow rule never matches a command with them. */
    private static final Pattern SHELL_META = Pattern.compile("[;&|<>`\\n\\r]|\\$\\(");
    private static final Pattern ARGUMENT = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)([=^~])(.+)");

    public Rule {
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(argument, "argument");
        Objects.requireNonNull(exact, "exact");
        Objects.requireNonNull(text, "text");
    }

    /**
     * The test of one argument.
     *
     * @param name   the argument's name, e.g. {@code command} or {@code path}
     * @param value  the test of its text
     * @param loose  a prefix or glob, not a regular expression a person wrote to the letter
     */
    public record ArgumentTest(String name, Pattern value, boolean loose) {
    }

    /**
     * Reads a rule.
     *
     * @throws PolicyException saying what is wrong with it and how rules are written
     */
    public static Rule parse(String text) {
        String rule = text.strip();
        String[] words = rule.split("\\s+", 3);
        if (words.length < 2) {
            throw refused(rule, "it needs a decision and a tool");
        }
        Decision decision;
        try {
            decision = Decision.valueOf(words[0].toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw refused(rule, "'" + words[0] + "' is not allow, ask or deny");
        }
        Pattern tool = glob(words[1], false);
        String rest = words.length > 2 ? words[2].strip() : "";
        Optional<Pattern> machine = Optional.empty();
        if (rest.startsWith("on ")) {
            String[] on = rest.substring(3).strip().split("\\s+", 2);
            machine = Optional.of(glob(on[0], false));
            rest = on.length > 1 ? on[1].strip() : "";
        }
        Optional<ArgumentTest> argument = Optional.empty();
        Optional<String> exact = Optional.empty();
        var hash = EXACT.matcher(rest.startsWith("if ") ? rest.substring(3).strip() : "");
        if (hash.matches()) {
            exact = Optional.of(hash.group(1));
        } else if (rest.startsWith("if ")) {
            var m = ARGUMENT.matcher(rest.substring(3).strip());
            if (!m.matches()) {
                throw refused(rule, "the test after 'if' must be <argument>=<glob>, <argument>^<prefix> or "
                        + "<argument>~<regex>");
            }
            String value = m.group(3).strip();
            Pattern test = switch (m.group(2)) {
                case "=" -> glob(value, true);
                case "^" -> Pattern.compile(Pattern.quote(value) + "(\\s.*)?", Pattern.DOTALL);
                default -> {
                    try {
                        yield Pattern.compile(value, Pattern.DOTALL);
                    } catch (PatternSyntaxException e) {
                        throw refused(rule, "'" + value + "' is not a regular expression: " + e.getDescription());
                    }
                }
            };
            argument = Optional.of(new ArgumentTest(m.group(1), test, !m.group(2).equals("~")));
        } else if (!rest.isEmpty()) {
            throw refused(rule, "'" + rest + "' is neither 'on <machine>' nor 'if <test>'");
        }
        return new Rule(decision, tool, machine, argument, exact, rule);
    }

    /** Whether this rule covers {@code call}. */
    public boolean matches(Call call) {
        if (!tool.matcher(call.tool()).matches()) {
            return false;
        }
        if (machine.isPresent() && (call.machine().isEmpty() || !machine.get().matcher(call.machine().get()).matches())) {
            return false;
        }
        if (exact.isPresent()) {
            return exact.get().equals(call.hash());
        }
        if (argument.isEmpty()) {
            return true;
        }
        JsonNode value = call.params().get(argument.get().name());
        if (value == null || !value.isValueNode()) {
            return false;
        }
        String name = argument.get().name();
        String text = name.equals("command") ? normalizedCommand(value.asText())
                : name.equals("path") || name.equals("cwd") ? normalizedPath(value.asText()) : value.asText();
        if (decision == Decision.ALLOW && argument.get().loose() && name.equals("command") && chains(text)) {
            // "allow run_shell if command^ls" must not allow "ls; rm -rf ~"; a regular expression says exactly
            // what it allows.
            return false;
        }
        try {
            return argument.get().value().matcher(new Budgeted(text)).matches();
        } catch (Budgeted.Exhausted e) {
            // A pattern that takes too long on this text: a deny or ask rule covers it, an allow rule does not.
            return decision != Decision.ALLOW;
        }
    }

    /** Whether a shell command chains, redirects or substitutes. */
    static boolean chains(String command) {
        return SHELL_META.matcher(command).find();
    }

    /** A command as rules see it: blanks around and between words made one space. */
    static String normalizedCommand(String command) {
        return command.strip().replaceAll("[ \\t]+", " ");
    }

    /** A path as rules see it: {@code //etc/./x} is {@code /etc/x}; {@code a/../b} is {@code b}. */
    static String normalizedPath(String path) {
        String p = path.strip();
        try {
            String n = Path.of(p).normalize().toString();
            return n.isEmpty() ? "." : n;
        } catch (InvalidPathException e) {
            return p;
        }
    }

    /** Text for a regular expression that gives up after a million character reads: a rule cannot hang a thread. */
    private static final class Budgeted implements CharSequence {
        private static final class Exhausted extends RuntimeException {
            Exhausted() {
                super("pattern budget exhausted", null, false, false);
            }
        }

        private final String text;
        private final int[] reads;

        Budgeted(String text) {
            this(text, new int[]{1_000_000});
        }

        private Budgeted(String text, int[] reads) {
            this.text = text;
            this.reads = reads;
        }

        @Override
        public int length() {
            return text.length();
        }

        @Override
        public char charAt(int index) {
            if (--reads[0] < 0) {
                throw new Exhausted();
            }
            return text.charAt(index);
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new Budgeted(text.substring(start, end), reads);
        }

        @Override
        public String toString() {
            return text;
        }
    }

    /** A glob as a pattern: {@code *} (within a path segment where {@code paths}), {@code **}, {@code ?}. */
    static Pattern glob(String glob, boolean paths) {
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '*' && i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                regex.append(".*");
                i++;
            } else if (c == '*') {
                regex.append(paths ? "[^/]*" : ".*");
            } else if (c == '?') {
                regex.append(paths ? "[^/]" : ".");
            } else {
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }

    private static PolicyException refused(String rule, String why) {
        return new PolicyException("approval rule '" + rule + "' cannot be read: " + why + ". Rules are written "
                + "<allow|ask|deny> <tool> [on <machine>] [if <argument>=<glob>|^<prefix>|~<regex>|#<call>], e.g. "
                + "'allow run_shell if command^git status'");
    }

    @Override
    public String toString() {
        return text;
    }
}
