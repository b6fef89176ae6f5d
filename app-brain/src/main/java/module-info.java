/**
 * The brain: the always-reachable server that talks to the user, keeps the task queue and routes every
 * tool call. Serves the web console at {@code /}, {@code /ws/console}, {@code /ws/worker}, the REST API under
 * {@code /api/v1}, {@code /mcp}, and {@code /observe/health} and {@code /observe/metrics}.
 *
 * @uses dev.efferent.brain.BrainFeatureProvider
 * @provides dev.efferent.brain.BrainFeatureProvider
 */
@SuppressWarnings("module") // efferent.bench is built after this module
module efferent.brain {
    requires efferent.router;
    requires efferent.calls;
    requires efferent.conversations;
    requires efferent.agent;
    requires efferent.scheduler;
    requires efferent.pairing;
    requires efferent.core;
    requires io.helidon.webserver;
    requires io.helidon.webserver.websocket;
    requires io.helidon.webserver.staticcontent;
    requires io.helidon.webserver.observe;
    requires io.helidon.webserver.observe.health;
    requires io.helidon.webserver.observe.metrics;
    requires io.helidon.health;
    requires io.helidon.common.socket;
    requires io.helidon.metrics.api;

    // The brain's features (REST, MCP, the worker socket, the console) are found, not wired by hand.
    uses dev.efferent.brain.BrainFeatureProvider;
    provides dev.efferent.brain.BrainFeatureProvider with dev.efferent.brain.ApiFeatureProvider,
            dev.efferent.brain.mcp.McpFeatureProvider, dev.efferent.brain.WorkerSocketFeatureProvider,
            dev.efferent.brain.ConsoleFeatureProvider;

    // The benchmarks measure the real worker socket (WorkerSocketFeature), not a copy of it.
    exports dev.efferent.brain to efferent.bench;
}
