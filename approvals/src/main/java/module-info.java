/**
 * The calls held for a person's yes: the brain's approval policy, the answers, the timeout and its fallback, and a
 * record of each, kept beside the tasks.
 */
module efferent.approvals {
    requires transitive efferent.approvals.policy;
    requires transitive efferent.router;

    exports dev.efferent.approvals;
}
