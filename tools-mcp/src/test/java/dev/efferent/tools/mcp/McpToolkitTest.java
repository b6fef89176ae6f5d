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

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

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

    static Path installed() throws Exception {
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
        assertTrue(missing.getMessage().startsWith("MCP server 'nothing' needs either 'nothing.command' (a program to "
                + "run, e.g. npx or node) or 'nothing.url'"), missing.getMessage());
        ToolException both = assertThrows(ToolException.class, () -> new McpToolkitProvider().create(
                Settings.of(Map.of("servers", "two", "two.command", "node", "two.url", "http://127.0.0.1:1/mcp"))));
        assertTrue(both.getMessage().endsWith(", not both"), both.getMessage());
        ToolException url = assertThrows(ToolException.class, () -> new McpToolkitProvider().create(
                Settings.of(Map.of("servers", "web", "web.url", "file:///etc/passwd"))));
        assertEquals("setting 'web.url' must be an http or https URL, e.g. http://127.0.0.1:3001/mcp, got "
                + "'file:///etc/passwd'", url.getMessage());
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

    @Test
    void aServerThatDiesIsStartedAgainItsToolsUnavailableMeanwhile() throws Exception {
        // A server of its own, told apart from the shared one by its "stdio" argument.
        Toolkit own = new McpToolkitProvider().create(Settings.of(Map.of("servers", "mortal",
                "mortal.command", "node", "mortal.args", installed() + ",stdio", "mortal.restart-delay", "3s")));
        List<String> changes = new CopyOnWriteArrayList<>();
        try (LocalToolExecutor local = new LocalToolExecutor(ToolCatalog.of(List.of(own)),
                AllowedRoots.of(List.of(Path.of("."))))) {
            ToolCatalog catalog = local.catalog();
            catalog.onChange(() -> changes.add(catalog.names().contains("mortal__echo") ? "up" : "down"));
            assertTrue(catalog.names().contains("mortal__echo"));

            ProcessHandle server = ProcessHandle.current().descendants().filter(p -> p.info().arguments()
                    .map(a -> List.of(a).contains("stdio")).orElse(false)).findFirst()
                    .orElseThrow(() -> new AssertionError("the server's node process is not a child of this JVM"));
            server.destroyForcibly();
            await(() -> !catalog.names().contains("mortal__echo"), "its tools are no longer offered");
            assertTrue(catalog.find("mortal__echo").isPresent(), "still known, so a call on its way fails clearly");
            ToolOutcome meanwhile = run(local, "mortal__echo", "{\"message\": \"anyone?\"}");
            assertEquals(ToolOutcome.Status.FAILED, meanwhile.status(), meanwhile.toString());
            assertTrue(meanwhile.toString().contains("MCP server 'mortal' is not running; it is being started again"),
                    meanwhile.toString());

            await(() -> catalog.names().contains("mortal__echo") && changes.size() == 2,
                    "its tools are back after the restart");
            assertEquals(List.of("down", "up"), changes, "told once when they went, once when they came back");
            ToolOutcome after = run(local, "mortal__echo", "{\"message\": \"back\"}");
            assertTrue(after.result().orElseThrow().text().contains("back"), after.toString());
        }
    }

    @Test
    void closingTheToolkitWhileAServerIsBeingStartedAgainLeavesNoServerRunning() throws Exception {
        Toolkit own = new McpToolkitProvider().create(Settings.of(Map.of("servers", "brief",
                "brief.command", "node", "brief.args", installed() + ",stdio,brief", "brief.restart-delay", "1s")));
        ProcessHandle server = servers("brief").findFirst().orElseThrow();
        server.destroyForcibly();
        server.onExit().get(10, TimeUnit.SECONDS);
        Thread.sleep(500);
        own.close();
        Thread.sleep(2_000);
        assertEquals(0, servers("brief").count(), "no server started after the toolkit closed");
    }

    private static Stream<ProcessHandle> servers(String marker) {
        return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).filter(p -> p.info().arguments()
                .map(a -> List.of(a).contains(marker)).orElse(false));
    }

    @Test
    void aServerOverStreamableHttpWithABearerTokenChangesItsToolsAndComesBackAfterAnOutage() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        String url = "http://127.0.0.1:" + port + "/mcp";
        Process web = httpServer(port);
        try {
            ToolException refused = assertThrows(ToolException.class, () -> new McpToolkitProvider().create(
                    Settings.of(Map.of("servers", "web", "web.url", url, "web.headers", "Authorization: Bearer wrong",
                            "web.start-timeout", "5s"))));
            assertTrue(refused.getMessage().startsWith("MCP server 'web' (" + url + ") did not start: "),
                    refused.getMessage());

            Toolkit own = new McpToolkitProvider().create(Settings.of(Map.of("servers", "web", "web.url", url,
                    "web.headers", "Authorization: Bearer sesame", "web.ping-interval", "1s")));
            try (LocalToolExecutor local = new LocalToolExecutor(ToolCatalog.of(List.of(own)),
                    AllowedRoots.of(List.of(Path.of("."))))) {
                ToolCatalog catalog = local.catalog();
                ToolOutcome echo = run(local, "web__echo", "{\"message\": \"over http\"}");
                assertTrue(echo.result().orElseThrow().text().contains("over http"), echo.toString());

                assertFalse(catalog.names().contains("web__grown"));
                run(local, "web__grow", "{}");
                await(() -> catalog.names().contains("web__grown"), "a tool the server added is offered");
                assertTrue(run(local, "web__grown", "{}").result().orElseThrow().text().contains("grown here"));

                web.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                await(() -> !catalog.names().contains("web__echo"), "a server that stops answering is unavailable");
                web = httpServer(port);
                await(() -> catalog.names().contains("web__echo"), "it is back when it answers again");
                assertTrue(run(local, "web__echo", "{\"message\": \"again\"}").result().orElseThrow().text()
                        .contains("again"));
            }
        } finally {
            web.destroyForcibly();
        }
    }

    /** The harness mcp-http-server.mjs, beside the installed server so that its imports resolve. */
    private static Process httpServer(int port) throws Exception {
        Path dir = installed().getParent().getParent().getParent().getParent().getParent();
        Path script = dir.resolve("mcp-http-server.mjs");
        try (var in = McpToolkitTest.class.getResourceAsStream("/mcp-http-server.mjs")) {
            Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
        }
        ProcessBuilder pb = new ProcessBuilder("node", script.toString()).redirectErrorStream(true);
        pb.environment().put("TOKEN", "sesame");
        pb.environment().put("PORT", String.valueOf(port));
        Process p = pb.start();
        var lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = lines.readLine();
        if (line == null || !line.startsWith("listening ")) {
            p.destroyForcibly();
            throw new AssertionError("the MCP HTTP server did not start: " + line);
        }
        Thread.ofVirtual().start(() -> lines.lines().forEach(l -> { }));
        return p;
    }

    private static ToolOutcome run(LocalToolExecutor local, String tool, String params) throws Exception {
        return local.execute(new ToolCall("t-" + tool, tool, (ObjectNode) JSON.readTree(params),
                Duration.ofSeconds(30)), ProgressListener.NONE).outcome().get(40, TimeUnit.SECONDS);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("within 30 s: " + what);
            }
            Thread.sleep(50);
        }
    }
}
