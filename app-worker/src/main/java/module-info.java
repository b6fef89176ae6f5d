/**
 * The worker: connects out to the brain over a WebSocket and runs the tools that need this machine.
 * Holds no queue, router or server code.
 */
module efferent.worker {
    requires efferent.core;
    requires efferent.approvals.policy;
    requires efferent.protocol;
    requires io.helidon.webclient.api;
    requires io.helidon.webclient.websocket;
    requires io.helidon.websocket;
    requires io.helidon.common.socket;
    requires io.helidon.http;
    requires java.net.http;
}
