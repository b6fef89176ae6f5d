package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The brain as an MCP server, used by a real MCP client no one here wrote: the official TypeScript SDK's, from the
 * npm registry, run with the machine's Node against two real worker processes.
 */
class McpServerTest extends BrainFixture {
    private static final String SDK = "@modelcontextprotocol/sdk@1.32.2";

    private Path client() throws Exception {
        return NodeScripts.prepare("mcp-client", "mcp/mcp-client.mjs", SDK);
    }

    private JsonNode mcp(Path client, String token, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("http://127.0.0.1:" + brain.port() + "/mcp", token));
        all.addAll(List.of(args));
        String out = NodeScripts.node(client, "mcp-client.mjs", all.toArray(String[]::new));
        String last = out.strip().lines().reduce((a, b) -> b).orElse("");
        return JSON.readTree(last);
    }

    @Test
    void anMcpClientListsTheToolsOfTwoMachinesCallsOneOnANamedMachineSeesProgressAndCancels() throws Exception {
        Path client = client();
        startBrain(true, Map.of("approvals.rules", "allow run_shell, deny list_dir on server"));
        Path laptop = dir.resolve("laptop-root");
        Path server = dir.resolve("server-root");
        Files.createDirectories(laptop);
        Files.createDirectories(server);
        Files.writeString(laptop.resolve("where.txt"), "on the laptop\n");
        Files.writeString(server.resolve("where.txt"), "on the server\n");
        startWorker("laptop", laptop, Map.of());
        startWorker("server", server, Map.of());
        awaitWorker("laptop", true, 30);
        awaitWorker("server", true, 30);

        JsonNode listed = mcp(client, TOKEN, "list");
        assertEquals("efferent", listed.path("server").path("name").asText(), listed.toString());
        JsonNode read = null;
        for (JsonNode t : listed.path("tools")) {
            if (t.path("name").asText().equals("read_file")) {
                read = t;
            }
        }
        assertTrue(read != null && read.path("readOnly").asBoolean(), listed.toString());
        assertEquals(List.of("laptop", "server"), sorted(read.path("workers")), "both machines have it: " + read);

        JsonNode called = mcp(client, TOKEN, "call", "read_file", "{\"path\": \"where.txt\", \"worker\": \"server\"}");
        assertEquals("on the server\n", called.path("result").path("content").path(0).path("text").asText(),
                called.toString());
        assertFalse(called.path("result").path("isError").asBoolean());

        // A machine named by its id is judged by its name: "deny list_dir on server" holds.
        String serverId = null;
        for (JsonNode w : call("GET", "/api/v1/workers", null, 200).path("workers")) {
            if (w.path("name").asText().equals("server")) {
                serverId = w.path("id").asText();
            }
        }
        JsonNode denied = mcp(client, TOKEN, "call", "list_dir", "{\"path\": \".\", \"worker\": \"" + serverId + "\"}");
        assertTrue(denied.path("result").path("isError").asBoolean(), denied.toString());
        assertTrue(denied.path("result").path("content").path(0).path("text").asText().startsWith("Refused by the "
                + "brain's approval policy"), denied.toString());

        JsonNode cancelled = mcp(client, TOKEN, "progress-then-cancel", "run_shell", "{\"command\": \"for i in 1 2 3 4 5 "
                + "6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do echo line $i; sleep 1; done\", \"worker\": \"laptop\"}");
        assertTrue(cancelled.path("progress").size() >= 2, cancelled.toString());
        assertTrue(cancelled.path("progress").path(0).asText().matches("\\d+ lines?, \\d+ s: line .*"),
                cancelled.toString());
        assertTrue(cancelled.path("cancelled").asText().contains("-32001"), "the client gave up: " + cancelled);
        JsonNode task = awaitTask(lastShell(), 20, t -> t.path("status").asText().equals("cancelled"));
        assertEquals("cancelled", task.path("status").asText(), "the brain cancelled the task: " + task);
        assertTrue(task.path("error").asText().startsWith("cancelled by the MCP client"), task.toString());
        assertEquals("laptop", task.path("runningOn").asText());
    }

    @Test
    void aWrongTokenIsRefusedWith401AndBadRequestsSayWhy() throws Exception {
        Path client = client();
        startBrain(false, Map.of());
        JsonNode refused = mcp(client, "wrong-token", "list");
        assertEquals(401, refused.path("code").asInt(), refused.toString());
        assertEquals(401, post(null, "{}").statusCode());

        assertEquals(405, http.send(mcpRequest("GET", null, null, TOKEN), HttpResponse.BodyHandlers.ofString())
                .statusCode());
        String session = session();
        HttpResponse<String> batch = post(TOKEN, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", session);
        assertEquals(400, batch.statusCode());
        assertTrue(batch.body().contains("batches are not supported"), batch.body());
        assertTrue(post(TOKEN, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/list\"}", session).body()
                .contains("\"code\":-32601"));
        assertTrue(post(TOKEN, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"teleport\"}}",
                session).body().contains("Unknown tool 'teleport'"));
        assertEquals(202, post(TOKEN, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", session)
                .statusCode());
        assertEquals(400, post(TOKEN, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}").statusCode(),
                "a request without its session is refused: its id could name another client's call");
        // The approval policy holds over MCP too: a command that writes asks, and no one can be asked here.
        JsonNode asks = JSON.readTree(post(TOKEN, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
                + "{\"name\":\"run_shell\",\"arguments\":{\"command\":\"rm -r build\"}}}", session).body());
        assertTrue(asks.path("result").path("isError").asBoolean(), asks.toString());
        assertTrue(asks.path("result").path("content").path(0).path("text").asText().startsWith("This call needs the "
                + "user's yes"), asks.toString());
    }

    @Test
    void aCallForAnOfflineMachineAnswersWithTheQueuedTask() throws Exception {
        startBrain(true, Map.of());
        Process laptop = startWorker("laptop", dir.resolve("laptop-root"), Map.of());
        awaitWorker("laptop", true, 30);
        laptop.destroyForcibly();
        awaitWorker("laptop", false, 30);
        JsonNode answer = JSON.readTree(post(TOKEN, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":"
                + "{\"name\":\"list_dir\",\"arguments\":{\"path\":\".\",\"worker\":\"laptop\"}}}", session()).body());
        JsonNode result = answer.path("result");
        assertTrue(result.path("content").path(0).path("text").asText().startsWith("Your machine is offline"),
                answer.toString());
        String taskId = result.path("structuredContent").path("taskId").asText();
        assertEquals("queued", task(taskId).path("status").asText());
    }

    private String lastShell() {
        String id = null;
        for (JsonNode t : call("GET", "/api/v1/tasks?limit=100", null, 200).path("tasks")) {
            if (t.path("tool").asText().equals("run_shell")) {
                id = t.path("id").asText();
            }
        }
        return id;
    }

    private HttpResponse<String> post(String token, String body) throws Exception {
        return post(token, body, null);
    }

    private HttpResponse<String> post(String token, String body, String session) throws Exception {
        HttpRequest r = mcpRequest("POST", body, "application/json, text/event-stream", token);
        if (session != null) {
            r = HttpRequest.newBuilder(r, (name, value) -> true).header("Mcp-Session-Id", session).build();
        }
        return http.send(r, HttpResponse.BodyHandlers.ofString());
    }

    /** A session, as initialize gives it. */
    private String session() throws Exception {
        HttpResponse<String> r = post(TOKEN, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
        assertEquals("2025-06-18", JSON.readTree(r.body()).path("result").path("protocolVersion").asText(), r.body());
        return r.headers().firstValue("Mcp-Session-Id").orElseThrow();
    }

    private HttpRequest mcpRequest(String method, String body, String accept, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + brain.port() + "/mcp"))
                .timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json");
        if (accept != null) {
            b.header("Accept", accept);
        }
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b.build();
    }

    private static List<String> sorted(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        out.sort(String::compareTo);
        return out;
    }
}
