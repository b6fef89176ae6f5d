package dev.efferent.brain.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.approvals.Approvals;
import dev.efferent.brain.BearerToken;
import dev.efferent.brain.BrainFeature;
import dev.efferent.calls.Gateway;
import dev.efferent.router.Router;
import io.helidon.webserver.http.HttpRouting;

import java.time.Clock;

/**
 * The brain as an MCP server at {@code /mcp}: any MCP client (Claude Desktop, Claude Code, Cursor, …) lists every
 * tool of every machine and calls them through the router, with the REST API's token.
 */
public final class McpFeature implements BrainFeature {
    private final McpEndpoint endpoint;

    /**
     * The feature.
     *
     * @param router    runs the calls
     * @param approvals judges them, as it judges the assistant's
     * @param apiToken  the REST API's token, which a client must send
     * @param json      the brain's JSON mapper
     * @param version   the brain's version, told to clients
     */
    public McpFeature(Router router, Approvals approvals, BearerToken apiToken, ObjectMapper json, String version) {
        this.endpoint = new McpEndpoint(router, new McpTools(new Gateway(router, approvals), json), new McpSessions(Clock.systemUTC()),
                apiToken, json, version);
    }

    @Override
    public void http(HttpRouting.Builder routing) {
        routing.register("/mcp", endpoint);
    }
}
