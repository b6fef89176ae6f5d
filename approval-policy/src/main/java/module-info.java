/**
 * The approval policy: whether a tool call runs, waits for a person's yes, or is refused; decided by the program
 * from rules and the tool's own hints, never by the model. The brain applies it to every call the assistant makes;
 * a worker applies its own deny rules to every call it receives.
 */
module efferent.approvals.policy {
    requires transitive efferent.tools.spi;
    requires transitive com.fasterxml.jackson.databind;

    exports dev.efferent.approvals.policy;
}
