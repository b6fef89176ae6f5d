package dev.efferent.tools.fs;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.core.tools.LocalToolExecutor;
import dev.efferent.core.tools.ProgressListener;
import dev.efferent.core.tools.ToolCall;
import dev.efferent.core.tools.ToolCatalog;
import dev.efferent.core.tools.ToolOutcome;
import dev.efferent.tools.spi.AllowedRoots;
import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.ToolResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Runs the file tools through the real executor (params validation included) inside a temporary root. */
abstract class FsToolsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path root;
    @TempDir
    Path outside;
    LocalToolExecutor executor;

    Settings settings() {
        return Settings.empty();
    }

    @BeforeEach
    void startExecutor() {
        startExecutor(settings());
    }

    /** Replaces the executor with one whose toolkit has {@code settings}. */
    void startExecutor(Settings settings) {
        if (executor != null) {
            executor.close();
        }
        executor = new LocalToolExecutor(
                ToolCatalog.of(List.of(new FsToolkitProvider().create(settings))), allowedRoots());
    }

    /** The roots the tools get: {@link #root}. */
    AllowedRoots allowedRoots() {
        return AllowedRoots.of(List.of(root));
    }

    @AfterEach
    void stopExecutor() {
        executor.close();
    }

    ToolOutcome call(String tool, Map<String, ?> params) {
        try {
            ObjectNode node = JSON.valueToTree(params);
            return executor.execute(new ToolCall("test", tool, node, Duration.ofSeconds(20)), ProgressListener.NONE)
                    .outcome().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** The result of a call that must complete. */
    ToolResult ok(String tool, Map<String, ?> params) {
        ToolOutcome outcome = call(tool, params);
        assertEquals(ToolOutcome.Status.COMPLETED, outcome.status(), () -> outcome.error().orElse(""));
        return outcome.result().orElseThrow();
    }

    /** The error of a call that must fail. */
    String error(String tool, Map<String, ?> params) {
        ToolOutcome outcome = call(tool, params);
        assertEquals(ToolOutcome.Status.FAILED, outcome.status(),
                () -> "expected a failure, got " + outcome.result().map(ToolResult::text));
        return outcome.error().orElseThrow();
    }

    static Optional<Object> field(ToolResult result, String name) {
        return Optional.ofNullable(result.structured().get(name));
    }
}
