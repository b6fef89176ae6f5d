package dev.efferent.worker;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.protocol.TaskDispatch;
import dev.efferent.protocol.WorkerAck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A command left running by a killed worker process is killed by the next one; a reused pid is not. */
@Timeout(90)
class ChildProcessesTest {
    private static final ProtocolCodec CODEC = new ProtocolCodec();

    @TempDir
    Path dir;

    @Test
    @DisabledOnOs(OS.WINDOWS)
    void theNextWorkerProcessKillsTheCommandAKilledOneLeftRunning() throws Exception {
        // A number no other process has as its argument, to find this sleep among the machine's processes.
        String seconds = "600." + ThreadLocalRandom.current().nextInt(100_000, 999_999);
        Path state = dir.resolve("state");
        Map<String, String> env = Map.of("EFFERENT_TOOLS_SHELL_SANDBOX", "none",
                "EFFERENT_WORKER_RECONNECT_INITIAL", "100ms");
        Optional<ProcessHandle> sleep = Optional.empty();
        try (FakeBrain brain = new FakeBrain(true)) {
            try (WorkerProcess first = WorkerProcess.start(dir, "first", brain.url(), state, env)) {
                FakeBrain.Link link = brain.nextLink(Duration.ofSeconds(20));
                link.next("worker:register", Duration.ofSeconds(10));
                link.send(CODEC.encode(new WorkerAck("w1", 1, 60_000)));
                link.send(CODEC.encode(new TaskDispatch("t-orphan", "run_shell", new ObjectMapper().createObjectNode()
                        .put("command", "sleep " + seconds).put("timeout", 3600), 5, 3_600_000, 1)));
                link.next("task:accepted", Duration.ofSeconds(10));
                sleep = await(() -> find(seconds), "the sleep to start");
                long pid = sleep.orElseThrow().pid();
                Path record = state.resolve(ChildProcesses.FILE);
                await(() -> Optional.of(record).filter(f -> read(f).contains(" " + pid + " ")),
                        "the worker to record the sleep");
                first.kill();
            }
            assertTrue(sleep.get().isAlive(), "a SIGKILLed worker leaves its command running: the case to mend");

            try (WorkerProcess second = WorkerProcess.start(dir, "second", brain.url(), state, env)) {
                String log = second.awaitLog("Killed 1 command left running by the previous worker process",
                        Duration.ofSeconds(20));
                System.out.println(log.lines().filter(l -> l.contains("Killed")).findFirst().orElse(""));
                assertFalse(sleep.get().isAlive(), "the sleep is gone once the new worker said so");
                FakeBrain.Link link = brain.nextLink(Duration.ofSeconds(20));
                link.next("worker:register", Duration.ofSeconds(10));
                link.send(CODEC.encode(new WorkerAck("w1", 0, 60_000)));
                String result = link.next("task:result", Duration.ofSeconds(10));
                assertTrue(result.contains("t-orphan") && result.contains("worker restarted while running"), result);
            }
        } finally {
            sleep.ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    void aProcessCountsAsTheRecordedOneOnlyIfItStartedAtTheSameInstant() {
        ProcessHandle self = ProcessHandle.current();
        Instant start = self.info().startInstant().orElseThrow();
        assertTrue(new ChildProcesses.Recorded(self.pid(), start, self.pid(), "java").live().isPresent());
        assertEquals(Optional.empty(), new ChildProcesses.Recorded(self.pid(), start.minusSeconds(60), self.pid(),
                "java").live(), "a pid reused by a later process is not the recorded one");
        assertEquals(Optional.of(new ChildProcesses.Recorded(42, start, 41, "/usr/bin/sleep 600")),
                ChildProcesses.Recorded.parse(new ChildProcesses.Recorded(42, start, 41, "/usr/bin/sleep 600").line()));
        assertEquals(Optional.empty(), ChildProcesses.Recorded.parse("garbage"));
    }

    @Test
    void aStateDirectoryWithoutARecordKillsNothing() {
        assertEquals(0, new ChildProcesses(dir, () -> false).killLeftovers());
        assertTrue(read(dir.resolve(ChildProcesses.FILE)).contains("worker " + ProcessHandle.current().pid() + " "));
    }

    private static Optional<ProcessHandle> find(String argument) {
        return ProcessHandle.allProcesses()
                .filter(h -> h.info().arguments().map(a -> Arrays.asList(a).equals(List.of(argument))).orElse(false))
                .findFirst();
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return "";
        }
    }

    // optional: a probe that returns an Optional, not an Optional passed in
    private static <T> Optional<T> await(Supplier<Optional<T>> probe, String what)
            throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        for (Optional<T> found = probe.get(); ; found = probe.get()) {
            if (found.isPresent()) {
                return found;
            }
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(50);
        }
    }
}
