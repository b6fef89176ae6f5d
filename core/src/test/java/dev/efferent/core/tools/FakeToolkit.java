package dev.efferent.core.tools;

import dev.efferent.tools.spi.ToolException;
import dev.efferent.tools.spi.ToolHints;
import dev.efferent.tools.spi.ToolResult;
import dev.efferent.tools.spi.ToolSpec;
import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.ToolContext;
import dev.efferent.tools.spi.ToolParams;
import dev.efferent.tools.spi.Toolkit;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.BiFunction;

/** Tools that behave in the ways the executor must handle. */
final class FakeToolkit implements Toolkit {
    final CountDownLatch cancelHookRan = new CountDownLatch(1);
    final CountDownLatch slowStarted = new CountDownLatch(1);
    volatile boolean slowSawInterrupt;

    static Tool tool(String name, String schema, BiFunction<ToolParams, ToolContext, ToolResult> body) {
        return Tool.of(ToolSpec.local(name, "test tool " + name, schema, ToolHints.MUTATING), body);
    }

    @Override
    public String name() {
        return "fake";
    }

    @Override
    public List<Tool> tools() {
        return List.of(
                tool("echo", """
                        {"type":"object","properties":{"text":{"type":"string"},"count":{"type":"integer","minimum":1}},
                         "required":["text"],"additionalProperties":false}""",
                        (p, c) -> ToolResult.text(p.string("text").repeat((int) p.integer("count", 1)))),
                tool("boom", "{\"type\":\"object\"}", (p, c) -> {
                    throw new IllegalStateException("kaput");
                }),
                tool("refuse", "{\"type\":\"object\"}", (p, c) -> {
                    throw new ToolException("path 'x' is outside the allowed roots");
                }),
                tool("progress", "{\"type\":\"object\"}", (p, c) -> {
                    c.progress(10, "ten");
                    c.progress(150, "over");
                    c.progress(-3, null);
                    return ToolResult.text("done");
                }),
                tool("leaveinterrupted", "{\"type\":\"object\"}", (p, c) -> {
                    // Returns with its thread's interrupt flag set, as a tool that re-asserts an interrupt does.
                    Thread.currentThread().interrupt();
                    Thread.currentThread().setPriority(Thread.MAX_PRIORITY);
                    return ToolResult.text("left");
                }),
                tool("whoami", "{\"type\":\"object\"}", (p, c) -> {
                    Thread t = Thread.currentThread();
                    return ToolResult.text(t.threadId() + " " + t.isInterrupted() + " " + t.getName() + " " + t.getPriority());
                }),
                tool("slow", "{\"type\":\"object\"}", (p, c) -> {
                    c.onCancel(cancelHookRan::countDown);
                    slowStarted.countDown();
                    try {
                        Thread.sleep(60_000);
                    } catch (InterruptedException e) {
                        slowSawInterrupt = true;
                    }
                    return ToolResult.text("woke up");
                }));
    }
}
