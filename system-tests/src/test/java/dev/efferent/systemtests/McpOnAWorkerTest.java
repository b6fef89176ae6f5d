package dev.efferent.systemtests;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker started with the MCP toolkit (as {@code bin/efferent worker --mcp} starts one) and a real MCP server no one
 * here wrote, the reference "everything" server from npm: its tools reach the brain, a call through the REST API
 * returns the server's answer, and a killed server's tools go away until the worker has started it again.
 */
class McpOnAWorkerTest extends SystemFixture {
    private static final String SERVER = "@modelcontextprotocol/server-everything@2026.8.31";

    @Test
    void anMcpServersToolsServeTheBrainAndComeBackAfterTheServerIsKilled() throws Exception {
        Path entry = installed();
        Launched brain = brain("brain", Map.of());
        Launched worker = worker("laptop", dir.resolve("laptop"), List.of(brain), List.of("mcp"), Map.of(
                "EFFERENT_TOOLS_MCP_SERVERS", "everything",
                "EFFERENT_TOOLS_MCP_EVERYTHING_COMMAND", "node",
                "EFFERENT_TOOLS_MCP_EVERYTHING_ARGS", entry.toString(),
                // Long enough for the test to see the tools gone before they are back.
                "EFFERENT_TOOLS_MCP_EVERYTHING_RESTART__DELAY", "3s"));
        awaitWorkerOnline(brain, "laptop", 60);
        awaitTools(brain, true);

        JsonNode echo = call(brain, "POST", "/api/v1/tasks?wait=60", "{\"tool\":\"everything__echo\","
                + "\"params\":{\"message\":\"from the brain\"},\"worker\":\"laptop\"}", 200);
        assertEquals("completed", echo.path("status").asText(), echo.toString());
        assertEquals("laptop", echo.path("runningOn").asText());
        assertTrue(echo.path("output").asText().contains("from the brain"), echo.toString());

        ProcessHandle server = worker.process().descendants()
                .filter(p -> p.info().arguments().map(a -> List.of(a).contains(entry.toString())).orElse(false))
                .findFirst().orElseThrow(() -> new AssertionError("no MCP server process under the worker"));
        server.destroyForcibly();
        awaitTools(brain, false);
        JsonNode meanwhile = JSON.readTree(send(brain, "POST", "/api/v1/tasks", "{\"tool\":\"everything__echo\","
                + "\"params\":{\"message\":\"anyone?\"}}").body());
        assertTrue(meanwhile.toString().contains("unknown tool 'everything__echo'"), meanwhile.toString());

        awaitTools(brain, true);
        JsonNode again = call(brain, "POST", "/api/v1/tasks?wait=60", "{\"tool\":\"everything__echo\","
                + "\"params\":{\"message\":\"back again\"},\"worker\":\"laptop\"}", 200);
        assertTrue(again.path("output").asText().contains("back again"), again.toString());
        assertTrue(worker.output().contains("MCP server everything exited"), worker.output());
    }

    private void awaitTools(Launched brain, boolean offered) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        JsonNode workers = null;
        while (System.nanoTime() < end) {
            workers = call(brain, "GET", "/api/v1/workers", null, 200).path("workers");
            for (JsonNode w : workers) {
                if (w.path("name").asText().equals("laptop") && w.path("online").asBoolean()
                        && w.path("tools").toString().contains("everything__echo") == offered) {
                    return;
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the worker's MCP tools were " + (offered ? "not offered" : "still offered")
                + " after 60 s: " + workers);
    }

    /** The server, installed into target/npm the first time (Node.js and npm are needed). */
    private static Path installed() throws Exception {
        Path dir = Path.of("target", "npm", "everything").toAbsolutePath();
        Path entry = dir.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        if (!Files.exists(entry)) {
            Files.createDirectories(dir);
            Process p = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix",
                    dir.toString(), SERVER).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0 || !Files.exists(entry)) {
                throw new AssertionError("npm install " + SERVER + " failed (Node.js and npm are needed):\n" + out);
            }
        }
        return entry;
    }
}
