package dev.efferent.approvals.policy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.efferent.tools.spi.Risk;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Whether a call runs, waits for a yes, or is refused. A call its tool judges forbidden ({@link Risk#FORBIDDEN}) is
 * refused first. Configured rules are checked strongest first: any matching {@code deny} refuses, else the tool's
 * own {@link Risk#ASK} or any matching {@code ask} holds the call, else any matching {@code allow} runs it. A
 * call no rule covers gets the defaults: a read-only tool runs; a shell command runs when it is one of the
 * built-in read-only commands ({@link #READ_ONLY_COMMANDS}) with no chaining, redirection or substitution, and
 * asks otherwise; a tool hinted destructive asks; any other runs. Immutable: {@link #with} makes a new policy.
 */
public final class Policy {
    /** The shell commands that run without asking, when nothing follows them but arguments. */
    public static final List<String> READ_ONLY_COMMANDS = List.of("ls", "cat", "pwd", "echo", "head", "tail", "wc",
            "grep", "stat", "file", "du", "df", "uname", "whoami", "id", "date", "uptime", "which", "hostname", "ps",
            "free", "git status");
    /**
     * What makes a listed command more than a read: options that write a file or run a program ({@code -o},
     * {@code --output}, {@code --pre}, {@code -exec}), and the brain's own secrets.
     */
    private static final Pattern NOT_A_READ = Pattern.compile("(^|\\s)(-o|--output\\S*|--pre\\S*|-exec\\S*|-delete)"
            + "(\\s|=|$)|\\.efferent\\b|api-token|worker-secret");
    /** The tool whose {@code command} argument is a shell command. */
    static final String SHELL = "run_shell";

    private final List<Rule> rules;

    /** A policy of {@code rules}, in the order given (the order does not change a decision). */
    public Policy(List<Rule> rules) {
        this.rules = List.copyOf(rules);
    }

    /**
     * A policy of rules as written (see {@link Rule}).
     *
     * @throws PolicyException for the first rule that cannot be read
     */
    public static Policy parse(List<String> rules) {
        return new Policy(rules.stream().filter(r -> !r.isBlank()).map(Rule::parse).toList());
    }

    /** The configured rules. */
    public List<Rule> rules() {
        return rules;
    }

    /** This policy and {@code rule} (e.g. a person's "allow always"). */
    public Policy with(Rule rule) {
        List<Rule> more = new ArrayList<>(rules);
        more.add(Objects.requireNonNull(rule, "rule"));
        return new Policy(more);
    }

    /** What happens to {@code call}, and why. */
    public Verdict decide(Call call) {
        if (call.risk() == Risk.FORBIDDEN) {
            return new Verdict(Decision.DENY, "the tool itself refuses it: it could destroy data that cannot be brought "
                    + "back");
        }
        for (Decision d : Decision.values()) {
            if (d == Decision.ASK) {
                // A person's "allow always" for this exact call beats a rule or a tool that would ask again.
                for (Rule rule : rules) {
                    if (rule.decision() == Decision.ALLOW && rule.exact().isPresent() && rule.matches(call)) {
                        return new Verdict(Decision.ALLOW, "you allowed this exact call always");
                    }
                }
            }
            if (d == Decision.ASK && call.risk() == Risk.ASK) {
                return new Verdict(Decision.ASK, "the tool itself asks before this call");
            }
            for (Rule rule : rules) {
                if (rule.decision() == d && rule.matches(call)) {
                    return new Verdict(d, "rule '" + rule.text() + "'");
                }
            }
        }
        if (call.tool().equals(SHELL)) {
            JsonNode command = call.params().path("command");
            return command.isTextual() && readOnly(command.asText())
                    ? new Verdict(Decision.ALLOW, "a read-only command")
                    : new Verdict(Decision.ASK, "shell commands ask unless they only read or an allow rule covers them");
        }
        if (call.hints().readOnly()) {
            return new Verdict(Decision.ALLOW, "a read-only tool");
        }
        if (call.hints().destructive()) {
            return new Verdict(Decision.ASK, "the tool may destroy or overwrite data");
        }
        return new Verdict(Decision.ALLOW, "no rule covers it and the tool is not marked destructive");
    }

    /** One of the read-only commands, with nothing chained, redirected or substituted. */
    static boolean readOnly(String command) {
        String c = Rule.normalizedCommand(command);
        if (Rule.chains(c) || NOT_A_READ.matcher(c).find()) {
            return false;
        }
        return READ_ONLY_COMMANDS.stream().anyMatch(p -> c.equals(p) || c.startsWith(p + " ") || c.startsWith(p + "\t"));
    }

    /** The rules, one per line, for {@code /policy}. */
    public String describe() {
        StringBuilder s = new StringBuilder();
        if (rules.isEmpty()) {
            s.append("No rules are configured (approvals.rules).\n");
        } else {
            s.append("Rules (deny is checked first, then ask, then allow):\n");
            rules.forEach(r -> s.append("  ").append(r.text()).append('\n'));
        }
        s.append("Otherwise: read-only tools run; shell commands run when they only read (")
                .append(String.join(", ", READ_ONLY_COMMANDS))
                .append("), else ask; tools marked destructive ask; others run.");
        return s.toString();
    }
}
