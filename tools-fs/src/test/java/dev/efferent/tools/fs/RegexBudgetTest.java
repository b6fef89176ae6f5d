package dev.efferent.tools.fs;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.core.tools.ProgressListener;
import dev.efferent.core.tools.ToolCall;
import dev.efferent.core.tools.ToolCatalog;
import dev.efferent.core.tools.ToolExecution;
import dev.efferent.core.tools.ToolOutcome;
import dev.efferent.tools.spi.AllowedRoots;
import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.ToolException;
import dev.efferent.tools.spi.ToolResult;
import dev.efferent.tools.spi.Toolkit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** search_files' regular expression stops at its step budget, on cancellation and at the deadline. */
class RegexBudgetTest extends FsToolsTest {
    /** Backtracks exponentially on a run of {@code a}s without a {@code b}: does not finish in any useful time. */
    private static final String CATASTROPHIC = "(.*a){20}b";
    private static final String FORTY_AS = "a".repeat(40);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    @Timeout(10)
    void aCatastrophicPatternSkipsTheLineAndSaysSo() throws IOException {
        Files.writeString(root.resolve("slow.txt"), "short\n" + FORTY_AS + "\nshort\n");
        long start = System.nanoTime();
        ToolResult result = ok("search_files", Map.of("pattern", CATASTROPHIC));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis < 3000, "took " + millis + " ms");
        assertEquals("No matches for /" + CATASTROPHIC + "/ in 1 files\n"
                + "[1 line skipped (first: slow.txt:2): the pattern took too long on it; simplify the pattern, "
                + "e.g. avoid nested or repeated '.*']\n", result.text());
        assertEquals(1, result.structured().get("slowLinesSkipped"));
        assertEquals(0, result.structured().get("slowFilesGivenUp"));
    }

    @Test
    @Timeout(10)
    void aFileWithManySlowLinesIsGivenUpAfterTen() throws IOException {
        Files.writeString(root.resolve("slow.txt"), (FORTY_AS + "\n").repeat(50));
        Files.writeString(root.resolve("fine.txt"), FORTY_AS + "b\n");
        ToolResult result = ok("search_files", Map.of("pattern", "(a+)+b|" + CATASTROPHIC));
        assertTrue(result.text().startsWith("fine.txt:1: " + FORTY_AS + "b\n[10 lines skipped (first: slow.txt:1)"),
                result.text());
        assertTrue(result.text().contains("[1 files given up after 10 such lines each;"), result.text());
        assertEquals(10, result.structured().get("slowLinesSkipped"));
        assertEquals(1, result.structured().get("slowFilesGivenUp"));
    }

    @Test
    @Timeout(10)
    void ordinaryPatternsAreNotAffected() throws IOException {
        // A minified file: megabytes on one line, searched with a pattern that tries every position.
        Files.writeString(root.resolve("app.min.js"), "var x=1;".repeat(250_000) + "function  render(){}\n");
        Files.writeString(root.resolve("A.java"), "class A {\n    int count = 0; // TODO reset\n}\n");
        ToolResult minified = ok("search_files", Map.of("pattern", "function\\s+render\\(", "glob", "*.js"));
        assertEquals(1, ((List<?>) minified.structured().get("matches")).size(), minified.text());
        assertEquals(0, minified.structured().get("slowLinesSkipped"));
        ToolResult java = ok("search_files", Map.of("pattern", "^\\s*(int|long)\\s+\\w+\\s*=\\s*\\d+;.*TODO",
                "glob", "*.java"));
        assertEquals("A.java:2:     int count = 0; // TODO reset\n", java.text());
        assertEquals(0, java.structured().get("slowLinesSkipped"));
    }

    @Test
    @Timeout(10)
    void aCancelledSearchStopsWithinASecond() throws Exception {
        Files.writeString(root.resolve("slow.txt"), FORTY_AS + "\n");
        Watched watched = new Watched();
        try (LocalToolExecutor executor = watched.executor()) {
            ToolExecution execution = executor.execute(search(Duration.ofMinutes(1)), ProgressListener.NONE);
            assertFalse(watched.returned.await(300, TimeUnit.MILLISECONDS), "the search should still be running");
            execution.cancel("stopped by the test");
            long start = System.nanoTime();
            assertTrue(watched.returned.await(1, TimeUnit.SECONDS), "search_files ran on after its call was cancelled");
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(ToolOutcome.Status.CANCELLED, execution.outcome().get(1, TimeUnit.SECONDS).status());
            ToolException stopped = assertInstanceOf(ToolException.class, watched.thrown.get());
            assertEquals("task test was cancelled", stopped.getMessage());
            assertTrue(millis < 1000, "stopped " + millis + " ms after the cancel");
        }
    }

    @Test
    @Timeout(10)
    void aSearchStopsAtItsDeadline() throws Exception {
        Files.writeString(root.resolve("slow.txt"), FORTY_AS + "\n");
        Watched watched = new Watched();
        try (LocalToolExecutor executor = watched.executor()) {
            long start = System.nanoTime();
            ToolExecution execution = executor.execute(search(Duration.ofSeconds(1)), ProgressListener.NONE);
            assertTrue(watched.returned.await(3, TimeUnit.SECONDS), "search_files ran on past its deadline");
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            ToolOutcome outcome = execution.outcome().get(1, TimeUnit.SECONDS);
            assertEquals(ToolOutcome.Status.FAILED, outcome.status());
            assertEquals("timed out after 1s", outcome.error().orElseThrow());
            assertTrue(millis < 2000, "returned " + millis + " ms after the start, the deadline being at 1000");
        }
    }

    private static ToolCall search(Duration timeout) {
        return new ToolCall("test", "search_files", JSON.valueToTree(Map.of("pattern", CATASTROPHIC)), timeout);
    }

    /**
     * The file tools behind the real executor, with a budget too large to end the test's search, and a watch on
     * when the tool's own call returns: the executor ends a cancelled call at once, whether or not the tool stops.
     */
    private final class Watched {
        final CountDownLatch returned = new CountDownLatch(1);
        final AtomicReference<Throwable> thrown = new AtomicReference<>();

        LocalToolExecutor executor() {
            Settings unbounded = key -> "max-regex-steps".equals(key)
                    ? Optional.of(String.valueOf(Integer.MAX_VALUE)) : Optional.empty();
            Toolkit fs = new FsToolkitProvider().create(unbounded);
            List<Tool> tools = fs.tools().stream().map(this::watch).toList();
            Toolkit toolkit = new Toolkit() {
                @Override
                public String name() {
                    return "fs";
                }

                @Override
                public List<Tool> tools() {
                    return tools;
                }
            };
            return new LocalToolExecutor(ToolCatalog.of(List.of(toolkit)), AllowedRoots.of(List.of(root)));
        }

        private Tool watch(Tool tool) {
            return Tool.of(tool.spec(), (params, context) -> {
                try {
                    return tool.call(params, context);
                } catch (RuntimeException e) {
                    thrown.set(e);
                    throw e;
                } finally {
                    returned.countDown();
                }
            });
        }
    }
}
