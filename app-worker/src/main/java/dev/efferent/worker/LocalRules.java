package dev.efferent.worker;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.approvals.policy.Call;
import dev.efferent.approvals.policy.Decision;
import dev.efferent.approvals.policy.PolicyException;
import dev.efferent.approvals.policy.Rule;
import dev.efferent.core.config.ConfigException;
import dev.efferent.core.config.ConfigSettings;
import dev.efferent.core.config.HomePath;
import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.core.tools.TaskRunner;
import dev.efferent.tools.spi.ToolHints;
import io.helidon.config.Config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * This machine's own rules ({@code worker.deny}, {@code --deny}, and {@code worker.deny-file}, one rule a line):
 * calls they cover are refused here, whatever the brain allowed. The machine's owner has the last word.
 */
final class LocalRules implements TaskRunner.Guard {
    private final List<Rule> rules;
    private final String machine;
    private final LocalToolExecutor executor;

    private LocalRules(List<Rule> rules, String machine, LocalToolExecutor executor) {
        this.rules = List.copyOf(rules);
        this.machine = machine;
        this.executor = executor;
    }

    /**
     * The rules {@code config} gives this worker.
     *
     * @throws ConfigException for a rule that cannot be read, a rule that does not deny, or a file that cannot be
     *                         read
     */
    static LocalRules from(Config config, String machine, LocalToolExecutor executor) {
        ConfigSettings s = new ConfigSettings(config.get("worker"));
        List<String> lines = new ArrayList<>(s.list("deny"));
        Optional<Path> file = s.get("deny-file").filter(f -> !f.isBlank()).map(HomePath::of);
        if (file.isPresent()) {
            try {
                for (String line : Files.readAllLines(file.get())) {
                    if (!line.isBlank() && !line.strip().startsWith("#")) {
                        lines.add(line);
                    }
                }
            } catch (IOException e) {
                throw new ConfigException("worker.deny-file '" + file.get() + "' cannot be read: " + e.getMessage());
            }
        }
        List<Rule> rules = new ArrayList<>();
        for (String line : lines) {
            // Written like the brain's rules; "deny" may be left out, since nothing else is allowed here.
            String first = line.strip().split("\\s+", 2)[0].toLowerCase(Locale.ROOT);
            if (first.equals("allow") || first.equals("ask")) {
                throw new ConfigException("a worker's own rules can only deny: '" + line.strip() + "'; write it as "
                        + "'deny " + line.strip().substring(first.length()).strip() + "', or leave the rule to the brain");
            }
            String text = first.equals("deny") ? line.strip() : "deny " + line.strip();
            try {
                Rule rule = Rule.parse(text);
                if (rule.decision() != Decision.DENY) {
                    throw new ConfigException("a worker's own rules can only deny: '" + line.strip() + "'");
                }
                rules.add(rule);
            } catch (PolicyException e) {
                throw new ConfigException(e.getMessage());
            }
        }
        return new LocalRules(rules, machine, executor);
    }

    List<Rule> rules() {
        return rules;
    }

    @Override
    public Optional<String> refusal(String tool, ObjectNode params) {
        if (rules.isEmpty()) {
            return Optional.empty();
        }
        var hints = executor.catalog().find(tool).map(e -> e.spec().hints())
                .orElse(ToolHints.MUTATING);
        Call call = new Call(tool, hints, params, Optional.of(machine));
        return rules.stream().filter(r -> r.matches(call)).findFirst().map(r -> "refused by " + machine
                + "'s own rule '" + r.text() + "' (a machine's own rules win over the brain's)");
    }
}
