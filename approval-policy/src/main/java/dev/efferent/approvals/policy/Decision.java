package dev.efferent.approvals.policy;

/** What the policy says about one call. Rules are checked in this order of strength: deny, then ask, then allow. */
public enum Decision {
    /** Refused. */
    DENY,
    /** Held until a person says yes. */
    ASK,
    /** Runs. */
    ALLOW
}
