/**
 * The one front door for a tool call: who asks ({@code Origin}, a closed set), and what came of a finished call
 * ({@code Outcome}, parsed once from the stored result).
 */
module efferent.calls {
    requires transitive efferent.router;
    requires transitive efferent.approvals;

    exports dev.efferent.calls;
}
