package dev.efferent.brain.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.brain.BearerToken;
import dev.efferent.brain.BrainFeature;
import dev.efferent.calls.Gateway;
import io.helidon.webserver.http.HttpRouting;

import java.time.Clock;

/**
 * The brain as an MCP server at {@code /mcp}: any MCP client (Claude Desktop, Claude Code, Cursor, …) lists every
 * tool of every machine and calls them through the router, with the REST API's token.
 */
final class McpFeature implements BrainFeature {
    private final McpEndpoint endpoint;

    /**
     * The feature.
     *
     * @param gateway  runs the calls, judged by the approval policy as the assistant's are
     * @param apiToken the REST API's token, which a client must send
     * @param json     the brain's JSON mapper
     * @param version  the brain's version, told to clients
     */
    McpFeature(Gateway gateway, BearerToken apiToken, ObjectMapper json, String version) {
        this.endpoint = new McpEndpoint(gateway.router(), new McpTools(gateway, json), new McpSessions(Clock.systemUTC()),
                apiToken, json, version);
    }

    @Override
    public void http(HttpRouting.Builder routing) {
        routing.register("/mcp", endpoint);
    }
}
