package dev.efferent.tools.spi;

/**
 * One tool: a spec that describes it and a call that runs it. Calls may run concurrently, so a tool keeps
 * no per-call state in fields. The host validates params against {@link ToolSpec#inputSchema()} before
 * {@link #call}, enforces the deadline and turns any exception into a failed result.
 */
public interface Tool {

    /** What the tool is, what it takes and where it may run. */
    ToolSpec spec();

    /**
     * Runs the tool.
     *
     * @param params  the validated params
     * @param context the task's id, allowed roots, progress, cancellation and deadline
     * @return the result; a result with {@link ToolResult#isError()} reports a failure the caller can act on
     * @throws ToolException for a failure whose message the user should read, e.g. a path outside the roots
     */
    ToolResult call(ToolParams params, ToolContext context);
}
