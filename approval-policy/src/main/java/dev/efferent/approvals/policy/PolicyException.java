package dev.efferent.approvals.policy;

/** A policy that cannot be read: the message names the rule and how rules are written. */
public class PolicyException extends RuntimeException {
    /** With a message that says what was wrong and what to write instead. */
    public PolicyException(String message) {
        super(message);
    }
}
