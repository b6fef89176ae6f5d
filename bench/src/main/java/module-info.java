/**
 * Benchmarks of the brain and its queue, run in-process on loopback with real WebSockets and a real PostgreSQL.
 */
module efferent.bench {
    requires efferent.router;
    requires efferent.calls;
    requires efferent.brain;
    requires efferent.agent;
    requires efferent.model.scripted;
    requires io.helidon.webserver;
    requires io.helidon.webserver.websocket;
    requires io.helidon.webclient.api;
    requires io.helidon.webclient.websocket;
    requires io.helidon.websocket;
    requires io.helidon.common.socket;
    requires io.helidon.http;
    requires java.management;
    requires java.sql;
    requires java.net.http;
    requires java.logging;
}
