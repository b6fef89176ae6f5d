/**
 * The approval policy: whether a tool call runs, waits for a person's yes, or is refused; decided by the program
 * from configured rules and the tool's own hints, never by the model. And the calls held for a yes: answers, the
 * timeout and its fallback, and the record of each.
 */
module efferent.approvals {
    requires transitive efferent.router;
    requires transitive com.fasterxml.jackson.databind;

    exports dev.efferent.approvals;
}
