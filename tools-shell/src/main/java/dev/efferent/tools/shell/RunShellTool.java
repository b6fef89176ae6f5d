package dev.efferent.tools.shell;

import dev.efferent.tools.spi.Risk;
import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.ToolContext;
import dev.efferent.tools.spi.ToolException;
import dev.efferent.tools.spi.ToolHints;
import dev.efferent.tools.spi.ToolParams;
import dev.efferent.tools.spi.ToolResult;
import dev.efferent.tools.spi.ToolSpec;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * run_shell: runs a command through the platform shell in a directory under a root, with a timeout that never
 * outlasts the task's deadline, capped output, progress per output line, and the whole process tree killed on
 * cancel or timeout. The command gets a {@link ChildEnvironment} instead of the worker's environment, and runs in
 * the configured {@link Sandbox}; the {@link DestructiveCommands} check comes first either way.
 */
final class RunShellTool implements Tool {
    private static final long PROGRESS_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    private static final Duration DRAIN_AFTER_EXIT = Duration.ofSeconds(2);
    private static final String DESCRIPTION = "Run a command with the platform shell (/bin/sh -c, or cmd.exe /c on "
            + "Windows) in 'cwd' (default the first root). Returns the exit code, stdout and stderr (each capped). The "
            + "command and every process it starts are killed after 'timeout' seconds (default 30) or on cancel. "
            + "Commands that can destroy a system (rm -rf /, mkfs, shutdown, dd to a disk, fork bombs) are refused.";
    private static final String SCHEMA = """
            {"type": "object",
             "properties": {
               "command": {"type": "string", "minLength": 1, "description": "The shell command line"},
               "cwd": {"type": "string", "description": "Working directory inside a root"},
               "timeout": {"type": "integer", "minimum": 1, "maximum": 86400, "description": "Seconds before the command is killed (default 30)"}
             },
             "required": ["command"],
             "additionalProperties": false}
            """;

    private final ShellLimits limits;
    private final Shell shell;
    private final ChildEnvironment environment;
    private final Sandbox sandbox;
    private final ToolSpec spec;

    RunShellTool(ShellLimits limits, Shell shell, ChildEnvironment environment, Sandbox sandbox) {
        this.limits = limits;
        this.shell = shell;
        this.environment = environment;
        this.sandbox = sandbox;
        // The model is told what the sandbox forbids, so it does not retry a download that cannot work.
        this.spec = ToolSpec.local("run_shell", DESCRIPTION + sandbox.describe(), SCHEMA,
                new ToolHints(false, true, false, true));
    }

    @Override
    public ToolSpec spec() {
        return spec;
    }

    /** A command the blocklist refuses is forbidden before it is even queued; others are left to the policy. */
    @Override
    public Risk risk(ToolParams params) {
        return params.optionalString("command").filter(c -> DestructiveCommands.check(c).isPresent())
                .map(c -> Risk.FORBIDDEN).orElse(Risk.UNJUDGED);
    }

    @Override
    public ToolResult call(ToolParams params, ToolContext context) {
        String command = params.string("command");
        Optional<String> refusal = DestructiveCommands.check(command);
        if (refusal.isPresent()) {
            throw new ToolException("refused to run '" + command + "': " + refusal.get()
                    + ". Nothing was run; if you really mean it, run it yourself in a terminal.");
        }
        String shownCwd = params.string("cwd", ".");
        Path cwd = context.roots().resolve(shownCwd);
        if (!Files.isDirectory(cwd)) {
            throw new ToolException("cwd '" + shownCwd + "' is not an existing directory");
        }
        Duration timeout = params.optionalInteger("timeout").map(Duration::ofSeconds).orElse(limits.defaultTimeout());
        Duration remaining = context.remaining();
        if (remaining.compareTo(timeout) < 0) {
            timeout = remaining;
        }
        try (Sandbox.Launch launch = sandbox.prepare(shell.argv(command), context.roots().paths(), cwd)) {
            return run(command, launch, cwd, timeout, context);
        }
    }

    private ToolResult run(String command, Sandbox.Launch launch, Path cwd, Duration timeout, ToolContext context) {
        long started = System.nanoTime();
        Process process;
        try {
            ProcessBuilder builder = new ProcessBuilder(shell.launch(launch.argv()))
                    .directory(cwd.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
            environment.applyTo(builder);
            process = builder.start();
        } catch (IOException e) {
            throw new ToolException("could not start the shell for '" + command + "': " + e.getMessage());
        }
        context.onCancel(() -> ProcessTree.kill(process, shell.ownProcessGroup()));
        AtomicLong lastProgress = new AtomicLong(started - PROGRESS_INTERVAL_NANOS);
        AtomicLong lines = new AtomicLong();
        OutputCapture stdout = new OutputCapture(process.getInputStream(), limits.maxOutputBytes(),
                line -> progress(context, lastProgress, started, lines.incrementAndGet(), line));
        OutputCapture stderr = new OutputCapture(process.getErrorStream(), limits.maxOutputBytes(),
                line -> progress(context, lastProgress, started, lines.incrementAndGet(), line));
        Thread.ofVirtual().name("run_shell-stdout-" + process.pid()).start(stdout);
        Thread.ofVirtual().name("run_shell-stderr-" + process.pid()).start(stderr);

        boolean exited;
        try {
            exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            // The host interrupts on cancel, after the cancel hook has killed the tree.
            ProcessTree.kill(process, shell.ownProcessGroup());
            Thread.currentThread().interrupt();
            throw new ToolException("command '" + command + "' was cancelled and killed with its child processes");
        }
        if (!exited) {
            ProcessTree.kill(process, shell.ownProcessGroup());
            awaitDrained(stdout, stderr);
            throw new ToolException("command '" + command + "' timed out after " + timeout.toSeconds()
                    + "s and was killed with its child processes. Output so far:\n"
                    + render(stdout, stderr, -1));
        }
        awaitDrained(stdout, stderr);
        if (context.isCancelled()) {
            throw new ToolException("command '" + command + "' was cancelled and killed with its child processes");
        }
        int exitCode = process.exitValue();
        long durationMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        Map<String, Object> structured = new LinkedHashMap<>();
        structured.put("exitCode", exitCode);
        structured.put("stdout", stdout.text());
        structured.put("stderr", stderr.text());
        structured.put("stdoutTruncatedBytes", stdout.droppedBytes());
        structured.put("stderrTruncatedBytes", stderr.droppedBytes());
        structured.put("durationMs", durationMs);
        return new ToolResult(ToolResult.text(render(stdout, stderr, exitCode)).content(), structured, exitCode != 0);
    }

    /**
     * A command's share of the work is unknown: its progress says how far it has got instead, e.g.
     * {@code 12 lines, 3 s: step 12}, at most once per interval.
     */
    private static void progress(ToolContext context, AtomicLong last, long started, long lines, String line) {
        long now = System.nanoTime();
        long previous = last.get();
        if (now - previous >= PROGRESS_INTERVAL_NANOS && last.compareAndSet(previous, now)) {
            context.progress(0, lines + (lines == 1 ? " line, " : " lines, ")
                    + TimeUnit.NANOSECONDS.toSeconds(now - started) + " s: " + line);
        }
    }

    private static void awaitDrained(OutputCapture... captures) {
        // A background child may keep a pipe open after the shell exits; give it a moment, then return
        // what we have rather than wait for it.
        long deadline = System.nanoTime() + DRAIN_AFTER_EXIT.toNanos();
        for (OutputCapture capture : captures) {
            while (!capture.isDone() && System.nanoTime() < deadline) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static String render(OutputCapture stdout, OutputCapture stderr, int exitCode) {
        StringBuilder out = new StringBuilder();
        if (exitCode >= 0) {
            out.append("exit code: ").append(exitCode).append('\n');
        }
        section(out, "stdout", stdout);
        section(out, "stderr", stderr);
        return out.toString();
    }

    private static void section(StringBuilder out, String name, OutputCapture capture) {
        String text = capture.text();
        if (text.isEmpty() && capture.droppedBytes() == 0) {
            return;
        }
        out.append("--- ").append(name).append(" ---\n").append(text);
        if (!text.endsWith("\n")) {
            out.append('\n');
        }
        if (capture.droppedBytes() > 0) {
            out.append("[… ").append(name).append(" truncated: ").append(capture.droppedBytes())
                    .append(" more bytes not shown]\n");
        }
    }

    private static File nullDevice() {
        return new File(System.getProperty("os.name", "").startsWith("Windows") ? "NUL" : "/dev/null");
    }
}
