package dev.efferent.tools.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.core.tools.ProgressListener;
import dev.efferent.core.tools.ToolCall;
import dev.efferent.core.tools.ToolCatalog;
import dev.efferent.core.tools.ToolExecution;
import dev.efferent.core.tools.ToolOutcome;
import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.AllowedRoots;
import dev.efferent.tools.spi.Content;
import dev.efferent.tools.spi.Placement;
import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.ToolException;
import dev.efferent.tools.spi.Toolkit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real MCP server no one here wrote, the reference "everything" server from the npm registry (installed into
 * {@code target/npm} the first time), run with the machine's Node: its tools through the toolkit and the executor.
 */
class McpToolkitTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SERVER = "@modelcontextprotocol/server-everything@2026.8.31";
    private static Toolkit toolkit;
    private static LocalToolExecutor executor;

    @BeforeAll
    static void start() throws Exception {
        Path entry = installed();
        toolkit = new McpToolkitProvider().create(Settings.of(Map.of("servers", "everything",
                "everything.command", "node", "everything.args", entry.toString(),
                "everything.env", "GREETING=hello")));
        executor = new LocalToolExecutor(ToolCatalog.of(List.of(toolkit)), AllowedRoots.of(List.of(Path.of("."))));
    }

    @AfterAll
    static void stop() {
        if (executor != null) {
            executor.close();
        }
    }

    private static Path installed() throws Exception {
        Path dir = Path.of("target", "npm", "everything").toAbsolutePath();
        Path entry = dir.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        if (!Files.exists(entry)) {
            Files.createDirectories(dir);
            Process p = new ProcessBuilder("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix",
                    dir.toString(), SERVER).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0 || !Files.exists(entry)) {
                throw new AssertionError("npm install " + SERVER + " failed (Node.js and npm are needed: "
                        + "apt-get install nodejs npm):\n" + out);
            }
        }
        return entry;
    }

    private static ToolOutcome run(String tool, String params) throws Exception {
        return executor.execute(new ToolCall("t-" + tool, tool, (ObjectNode) JSON.readTree(params),
                Duration.ofSeconds(30)), ProgressListener.NONE).outcome().get(40, TimeUnit.SECONDS);
    }

    private static Tool tool(String name) {
        return toolkit.tools().stream().filter(t -> t.spec().name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError(name + " not among " + toolkit.tools()));
    }

    @Test
    void theServersToolsAreOfferedUnderLegalNamesWithTheirSchemasAndHints() {
        Tool image = tool("everything__get_tiny_image");
        assertEquals(Placement.LOCAL, image.spec().placement());
        assertTrue(image.spec().description().endsWith("(MCP server everything)"), image.spec().description());
        assertTrue(tool("everything__get_sum").spec().inputSchema().contains("\"a\""),
                tool("everything__get_sum").spec().inputSchema());
        assertTrue(toolkit.tools().stream().allMatch(t -> t.spec().name().matches("[a-z][a-z0-9_]{0,63}")));
    }

    @Test
    void callsReturnTheServersTextImagesAndErrors() throws Exception {
        ToolOutcome echo = run("everything__echo", "{\"message\": \"hi there\"}");
        assertEquals(ToolOutcome.Status.COMPLETED, echo.status(), echo.toString());
        assertTrue(echo.result().orElseThrow().text().contains("hi there"), echo.toString());

        ToolOutcome sum = run("everything__get_sum", "{\"a\": 2, \"b\": 3}");
        assertTrue(sum.result().orElseThrow().text().contains("5"), sum.toString());

        ToolOutcome image = run("everything__get_tiny_image", "{}");
        assertTrue(image.result().orElseThrow().content().stream().anyMatch(c -> c instanceof Content.Image i
                && i.mimeType().equals("image/png") && !i.data().isEmpty()), image.toString());

        ToolOutcome wrong = run("everything__get_sum", "{\"a\": \"two\", \"b\": 3}");
        assertFalse(wrong.status() == ToolOutcome.Status.COMPLETED && !wrong.result().orElseThrow().isError(),
                "arguments the schema refuses do not pass: " + wrong);
    }

    @Test
    void theServerGetsACleanEnvironmentWithWhatItsSettingsAdd() throws Exception {
        String env = run("everything__get_env", "{}").result().orElseThrow().text();
        assertTrue(env.contains("GREETING"), env);
        assertFalse(env.contains("MAVEN_OPTS") || env.contains("JAVA_HOME"), "none of the host's variables: " + env);
    }

    @Test
    void progressIsForwardedAndCancellingEndsTheCallAtOnce() throws Exception {
        List<String> progress = new CopyOnWriteArrayList<>();
        ToolExecution running = executor.execute(new ToolCall("t-long", "everything__trigger_long_running_operation",
                (ObjectNode) JSON.readTree("{\"duration\": 20, \"steps\": 20}"), Duration.ofSeconds(60)),
                (task, percent, message) -> progress.add(percent + " " + message));
        long end = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (progress.size() < 2 && System.nanoTime() < end) {
            Thread.sleep(50);
        }
        assertTrue(progress.size() >= 2, "progress reached the executor: " + progress);
        assertTrue(progress.get(1).startsWith("10 "), "2 of 20 steps is 10%: " + progress);
        long cancelled = System.nanoTime();
        running.cancel("cancelled by the test");
        ToolOutcome outcome = running.outcome().get(10, TimeUnit.SECONDS);
        assertEquals(ToolOutcome.Status.CANCELLED, outcome.status());
        assertTrue((System.nanoTime() - cancelled) / 1_000_000 < 5_000, "ended at once, not after the 20 s operation");
    }

    @Test
    void aServerThatCannotStartIsSaidWithItsName() {
        ToolException missing = assertThrows(ToolException.class, () -> new McpToolkitProvider().create(
                Settings.of(Map.of("servers", "nothing"))));
        assertTrue(missing.getMessage().startsWith("MCP server 'nothing' needs 'nothing.command': the program to run"),
                missing.getMessage());
        ToolException absent = assertThrows(ToolException.class, () -> new McpToolkitProvider().create(
                Settings.of(Map.of("servers", "gone", "gone.command", "/no/such/program"))));
        assertEquals("MCP server 'gone': the command '/no/such/program' is not an executable file ('gone.command')",
                absent.getMessage());
        ToolException quits = assertThrows(ToolException.class, () -> new McpToolkitProvider().create(
                Settings.of(Map.of("servers", "quits", "quits.command", "node", "quits.args", "-e,process.exit(3)",
                        "quits.start-timeout", "2s"))));
        assertTrue(quits.getMessage().startsWith("MCP server 'quits' (node -e process.exit(3)) did not start: "),
                quits.getMessage());
    }
}
