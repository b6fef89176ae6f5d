package dev.efferent.tools.fs;

import dev.efferent.core.tools.ToolOutcome;
import dev.efferent.tools.spi.ToolResult;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static java.nio.file.LinkOption.NOFOLLOW_LINKS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Another thread swaps a directory on the tools' path for a link to a directory outside the root, over and over,
 * while write_file and read_file go through it. Calls may fail; none may write or read outside the root.
 */
class SymlinkRaceTest extends FsToolsTest {
    private static final int CALLS = 1_000;
    private static final Duration BUDGET = Duration.ofSeconds(15);

    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger swaps = new AtomicInteger();
    private final AtomicReference<Exception> swapperFailure = new AtomicReference<>();
    private Path dir;
    private Path away;

    @Test
    void swappingADirectoryForALinkNeverLeadsOutside() throws Exception {
        dir = Files.createDirectories(root.resolve("d"));
        away = root.resolve("d.away");
        Files.writeString(dir.resolve("secret.txt"), "inside\n");
        Files.writeString(outside.resolve("secret.txt"), "top secret\n");

        int calls = 0;
        int failures = 0;
        int readEscapes = 0;
        Thread swapper = Thread.ofPlatform().name("symlink-swapper").daemon(true).start(this::swapUntilStopped);
        try {
            long deadline = System.nanoTime() + BUDGET.toNanos();
            for (int i = 0; i < CALLS && System.nanoTime() < deadline && swapper.isAlive(); i++) {
                ToolOutcome write = call("write_file", Map.of("path", "d/new-" + i + ".txt", "content", "x"));
                ToolOutcome read = call("read_file", Map.of("path", "d/secret.txt"));
                calls += 2;
                failures += (write.status() == ToolOutcome.Status.COMPLETED ? 0 : 1)
                        + (read.status() == ToolOutcome.Status.COMPLETED ? 0 : 1);
                if (read.result().map(ToolResult::text).orElse("").contains("top secret")) {
                    readEscapes++;
                }
            }
        } finally {
            stop.set(true);
            swapper.join(Duration.ofSeconds(10));
        }
        List<String> writtenOutside;
        try (Stream<Path> files = Files.walk(outside)) {
            writtenOutside = files.filter(p -> !p.equals(outside) && !p.endsWith("secret.txt"))
                    .map(p -> outside.relativize(p).toString()).toList();
        }
        System.out.printf("symlink race: %d calls, %d failed, %d swaps, %d read escapes, %d files written outside%n",
                calls, failures, swaps.get(), readEscapes, writtenOutside.size());

        assertNull(swapperFailure.get(), "the swapper stopped early");
        assertFalse(swapper.isAlive(), "the swapper did not stop");
        assertTrue(swaps.get() > 0 && calls > 0, "the race never ran: " + swaps + " swaps, " + calls + " calls");
        assertEquals(List.of(), writtenOutside, "write_file wrote outside the root");
        assertEquals(0, readEscapes, "read_file returned the outside file's content");
        assertEquals("top secret\n", Files.readString(outside.resolve("secret.txt")));
    }

    /** Rename the real directory away, put a link to outside in its place, remove it, rename the directory back. */
    private void swapUntilStopped() {
        try {
            while (!stop.get()) {
                try {
                    Files.move(dir, away);
                    Files.createSymbolicLink(dir, outside);
                    Files.delete(dir);
                    Files.move(away, dir);
                    swaps.incrementAndGet();
                } catch (IOException e) {
                    // A write_file that ran while the directory was away made a fresh 'd' (inside the root) in
                    // its place; that is expected, so the real directory is put back and the race goes on.
                    restore();
                }
            }
        } catch (IOException | RuntimeException e) {
            swapperFailure.set(e);
        }
    }

    private void restore() throws IOException {
        for (int attempt = 1; Files.exists(away, NOFOLLOW_LINKS); attempt++) {
            try {
                deleteTree(dir);
                Files.move(away, dir);
            } catch (IOException | UncheckedIOException e) {
                // Writes may still be landing in the stray directory; try again, but not forever.
                if (attempt == 1_000) {
                    throw e instanceof UncheckedIOException u ? u.getCause() : (IOException) e;
                }
            }
        }
    }

    private static void deleteTree(Path path) throws IOException {
        if (Files.isSymbolicLink(path)) {
            Files.deleteIfExists(path); // the link itself, never what it points to
            return;
        }
        if (!Files.exists(path, NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> tree = Files.walk(path)) {
            for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
