package dev.efferent.tools.spi;

import java.util.Objects;
import java.util.function.BiFunction;

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

    /**
     * How risky a call with {@code params} would be, judged before it is run or queued (the params are not yet
     * validated: judge what is there, quickly, without side effects). The default does not judge.
     */
    default Risk risk(ToolParams params) {
        return Risk.UNJUDGED;
    }

    /**
     * Whether the tool can run now. An unavailable tool is not offered (the brain does not send it calls) but stays
     * known, so a call that was already on its way fails with the tool's own message rather than as an unknown tool.
     * The default is always available; a toolkit that changes this calls its {@link Toolkit#onChange} listeners.
     */
    default boolean available() {
        return true;
    }

    /** A tool made of a spec and a function, for toolkits whose tools need no class of their own. */
    static Tool of(ToolSpec spec, BiFunction<ToolParams, ToolContext, ToolResult> body) {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(body, "body");
        return new Tool() {
            @Override
            public ToolSpec spec() {
                return spec;
            }

            @Override
            public ToolResult call(ToolParams params, ToolContext context) {
                return body.apply(params, context);
            }

            @Override
            public String toString() {
                return "Tool[" + spec.name() + "]";
            }
        };
    }
}
