package dev.efferent.systemtests;

import dev.efferent.model.scripted.ScriptedModelServer;
import dev.efferent.model.scripted.Step;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code bin/efferent chat} as a process: commands on standard input, replies and checkpoints on standard output. */
class TerminalChatTest extends SystemFixture {

    @Test
    void commandsInRepliesAndResultsOut() throws Exception {
        Launched brain = brain("brain", Map.of());
        worker("laptop", dir.resolve("laptop"), List.of(brain));
        awaitWorkerOnline(brain, "laptop", 60);
        Path home = dir.resolve("home");
        String text = chat(brain, home, "/workers\n/shell echo hello from the terminal\n");
        assertTrue(text.startsWith("Connected to http://127.0.0.1:" + brain.port()), text);
        assertTrue(text.contains("● laptop  online"), text);
        assertTrue(text.contains("Running run_shell on laptop ("), text);
        assertTrue(text.contains("[✅ Complete] run_shell (") && text.contains("hello from the terminal"), text);
        assertTrue(Files.readString(home.resolve(".efferent/chat-conversation")).startsWith("terminal-"));
    }

    @Test
    void theAssistantsAnswerStreamsOntoOneLine() throws Exception {
        try (ScriptedModelServer model = ScriptedModelServer.start()) {
            model.then(Step.Reply.text("Hello from the model, written as it thinks.").slowly(Duration.ofMillis(30)));
            Launched brain = brain("brain", Map.of("EFFERENT_MODEL_BASE__URL", model.openAiBaseUrl(),
                    "EFFERENT_MODEL_NAME", "scripted"));
            List<String> lines = chat(brain, dir.resolve("home"), "hello there\n").lines().toList();
            assertTrue(lines.contains("Hello from the model, written as it thinks."), lines.toString());
        }
    }

    /** Runs {@code bin/efferent chat} against {@code brain} with {@code input} on standard input; its output. */
    private String chat(Launched brain, Path home, String input) throws Exception {
        Files.createDirectories(home);
        Path out = dir.resolve("chat.out");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Duser.home=" + home, "-Defferent.chat.linger-ms=4000",
                "--enable-native-access=org.jline", "-p", System.getProperty("efferent.test.chat.lib"),
                "-m", "efferent.chat/dev.efferent.chat.ChatMain",
                "--brain-url", "http://127.0.0.1:" + brain.port())
                .redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().put("EFFERENT_API_TOKEN", TOKEN);
        Process chat = pb.start();
        chat.getOutputStream().write(input.getBytes());
        chat.getOutputStream().close();
        assertTrue(chat.waitFor(60, TimeUnit.SECONDS), "chat did not finish");
        String text = Files.readString(out);
        assertEquals(0, chat.exitValue(), text);
        return text;
    }

    @Test
    void onATerminalThereIsAPromptWithHistory() throws Exception {
        Launched brain = brain("brain", Map.of());
        Path home = Files.createDirectories(dir.resolve("tty-home"));
        // A real pseudo-terminal, as a person's shell gives the chat: util-linux's script(1) runs it on one.
        String java = String.join(" ", Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Duser.home=" + home, "-Defferent.chat.linger-ms=2000", "--enable-native-access=org.jline", "-p",
                System.getProperty("efferent.test.chat.lib"), "-m", "efferent.chat/dev.efferent.chat.ChatMain",
                "--brain-url", "http://127.0.0.1:" + brain.port());
        Path out = dir.resolve("tty.out");
        ProcessBuilder pb = new ProcessBuilder("script", "-qfec", java, "/dev/null").redirectErrorStream(true)
                .redirectOutput(out.toFile());
        pb.environment().put("EFFERENT_API_TOKEN", TOKEN);
        pb.environment().put("TERM", "xterm");
        Process chat = pb.start();
        var keys = chat.getOutputStream();
        awaitOutput(out, "you> ", 1);
        keys.write("/tasks\r".getBytes());
        keys.flush();
        awaitOutput(out, "No tasks are queued or running.", 1);
        // Up arrow (as a terminal in application cursor mode sends it): the line typed before, sent again.
        keys.write("\u001bOA\r".getBytes());
        keys.flush();
        awaitOutput(out, "No tasks are queued or running.", 2);
        keys.write(new byte[]{4});
        keys.flush();
        assertTrue(chat.waitFor(60, TimeUnit.SECONDS), "Ctrl-D did not end the chat:\n" + Files.readString(out));
        assertEquals("/tasks", Files.readAllLines(home.resolve(".efferent/chat-history")).stream()
                .map(l -> l.replaceFirst("^\\d+:", "")).filter(l -> !l.isBlank()).reduce((a, b) -> b).orElse(""));
    }

    private static void awaitOutput(Path out, String text, int times) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String seen = "";
        while (System.nanoTime() < end) {
            seen = Files.exists(out) ? Files.readString(out) : "";
            if (seen.split(Pattern.quote(text), -1).length - 1 >= times) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("'" + text + "' not shown " + times + " times:\n" + seen);
    }

    @Test
    void aWrongTokenIsRefusedClearly() throws Exception {
        Launched brain = brain("brain", Map.of());
        Path tokenFile = dir.resolve("token");
        Files.writeString(tokenFile, "wrong\n");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Duser.home=" + dir, "--enable-native-access=org.jline", "-p", System.getProperty("efferent.test.chat.lib"),
                "-m", "efferent.chat/dev.efferent.chat.ChatMain", "--brain-url", "http://127.0.0.1:" + brain.port(),
                "--token-file", tokenFile.toString()).redirectErrorStream(true);
        Process chat = pb.start();
        String text = new String(chat.getInputStream().readAllBytes());
        assertTrue(chat.waitFor(30, TimeUnit.SECONDS));
        assertEquals(1, chat.exitValue());
        assertTrue(text.contains("refused the API token"), text);
    }

    @Test
    void aBrainThatIsNotThereIsSaidSoWithWhatToDo() throws Exception {
        int port = freePort();
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Duser.home=" + dir, "--enable-native-access=org.jline", "-p", System.getProperty("efferent.test.chat.lib"),
                "-m", "efferent.chat/dev.efferent.chat.ChatMain", "--brain-url", "http://127.0.0.1:" + port)
                .redirectErrorStream(true);
        Process chat = pb.start();
        String text = new String(chat.getInputStream().readAllBytes());
        assertTrue(chat.waitFor(30, TimeUnit.SECONDS));
        assertEquals(1, chat.exitValue());
        assertTrue(text.contains("cannot reach the brain at http://127.0.0.1:" + port + ": nothing answers there "
                + "(connection refused). Is it running (bin/efferent brain)? Another address: --brain-url"), text);
    }
}
