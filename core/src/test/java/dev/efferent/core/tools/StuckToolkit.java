package dev.efferent.core.tools;

import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.ToolResult;
import dev.efferent.tools.spi.Toolkit;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;

/**
 * Tools that do not return when their call ends: they ignore interrupts and cancellation until the test lets them
 * go ({@link #letGo()}), so no test leaves a spinning thread behind.
 */
final class StuckToolkit implements Toolkit {
    /** One permit per stuck tool that has started. */
    final Semaphore started = new Semaphore(0);
    private volatile boolean letGo;

    /** Lets every stuck tool return, and releases readers blocked opening {@code fifos}. */
    void letGo(List<Path> fifos) {
        letGo = true;
        for (Path fifo : fifos) {
            // Opened for reading and writing, a FIFO never blocks (Linux) and counts as the writer the readers
            // blocked in open() wait for; closed at once, they read an end of file.
            try (RandomAccessFile both = new RandomAccessFile(fifo.toFile(), "rw")) {
                both.getFD().sync();
            } catch (IOException e) {
                // SyncFailedException: a FIFO cannot be synced; the open was what counted.
            }
        }
    }

    @Override
    public String name() {
        return "stuck";
    }

    @Override
    public List<Tool> tools() {
        return List.of(
                FakeToolkit.tool("echo", "{\"type\":\"object\"}", (p, c) -> ToolResult.text("echo")),
                // CPU-bound and deaf to interrupts, as a backtracking regular expression is.
                FakeToolkit.tool("spin", "{\"type\":\"object\"}", (p, c) -> {
                    started.release();
                    long n = 0;
                    while (!letGo) {
                        n = n * 31 + 7;
                    }
                    return ToolResult.text("spun " + (n & 1));
                }),
                // Blocked and deaf to interrupts: parks again whenever woken.
                FakeToolkit.tool("park", "{\"type\":\"object\"}", (p, c) -> {
                    started.release();
                    while (!letGo) {
                        Thread.interrupted();
                        LockSupport.parkNanos(20_000_000);
                    }
                    return ToolResult.text("unparked");
                }),
                // Blocked in native code: open() of a FIFO waits for a writer, out of reach of interrupts.
                FakeToolkit.tool("fifo", """
                        {"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}""", (p, c) -> {
                    started.release();
                    try (InputStream in = new FileInputStream(p.string("path"))) {
                        return ToolResult.text("read " + in.readAllBytes().length + " bytes");
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }),
                // Heeds its interrupt, but takes a moment to clean up, as a shell tool killing its process does.
                FakeToolkit.tool("nap", "{\"type\":\"object\"}", (p, c) -> {
                    started.release();
                    try {
                        Thread.sleep(60_000);
                    } catch (InterruptedException e) {
                        // 100 ms of cleanup; interrupt() left a park permit, so parking once would not wait.
                        long end = System.nanoTime() + 100_000_000;
                        for (long left = end - System.nanoTime(); left > 0; left = end - System.nanoTime()) {
                            LockSupport.parkNanos(left);
                        }
                    }
                    return ToolResult.text("woke up");
                }));
    }
}
