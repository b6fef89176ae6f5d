package dev.efferent.approvals.policy;

import java.util.Objects;

/**
 * The policy's answer for one call, and why: the rule that decided, in words a person reads in the prompt.
 *
 * @param decision what happens to the call
 * @param why      e.g. {@code rule "ask run_shell"} or {@code shell commands ask unless an allow rule matches}
 */
public record Verdict(Decision decision, String why) {
    public Verdict {
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(why, "why");
    }
}
