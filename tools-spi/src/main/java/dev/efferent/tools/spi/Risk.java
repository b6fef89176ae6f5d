package dev.efferent.tools.spi;

/**
 * How risky one call is, as the tool judges from its arguments ({@link Tool#risk}). The brain's approval policy
 * takes it into account: a forbidden call is refused whatever the rules allow, a call the tool asks about waits for
 * a person's yes unless a rule denies it.
 */
public enum Risk {
    /** The tool does not judge: the policy decides from its rules and the tool's hints. */
    UNJUDGED,
    /** Ask a person first. */
    ASK,
    /** Never: e.g. a command that would wipe a disk or the home directory. */
    FORBIDDEN
}
