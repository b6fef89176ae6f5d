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
                "-p", System.getProperty("efferent.test.chat.lib"), "-m", "efferent.chat/dev.efferent.chat.ChatMain",
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
    void aWrongTokenIsRefusedClearly() throws Exception {
        Launched brain = brain("brain", Map.of());
        Path tokenFile = dir.resolve("token");
        Files.writeString(tokenFile, "wrong\n");
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Duser.home=" + dir, "-p", System.getProperty("efferent.test.chat.lib"),
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
                "-Duser.home=" + dir, "-p", System.getProperty("efferent.test.chat.lib"),
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
