package dev.efferent.router;

import java.util.List;

/**
 * What the router knows, as it stood at the end of a turn of its loop: readers on other threads (the REST API, the
 * agent, the console) read it without waiting for the router's thread, which also runs the queue's statements.
 *
 * @param workers       every worker seen since start: online ones first, then by name
 * @param tools         every tool known, with the online workers that have it
 * @param running       tasks dispatched and not finished
 * @param workersOnline workers online, not counting the brain's in-process worker
 * @param toolsVersion  the {@link RouterState#toolsVersion} the tools were listed at
 */
record RouterView(List<WorkerInfo> workers, List<ToolInfo> tools, int running, int workersOnline, long toolsVersion) {
    static final RouterView EMPTY = new RouterView(List.of(), List.of(), 0, 0, -1);

    RouterView {
        workers = List.copyOf(workers);
        tools = List.copyOf(tools);
    }

    /** {@code state} now, on the router's thread; the tools of {@code before} if they have not changed since. */
    static RouterView of(RouterState state, RouterSettings settings, RouterView before) {
        List<ToolInfo> tools = before.toolsVersion() == state.toolsVersion ? before.tools() : state.tools(settings);
        return new RouterView(state.workers(), tools, state.runningCount(),
                (int) state.sessions.values().stream().filter(s -> !s.local).count(), state.toolsVersion);
    }
}
