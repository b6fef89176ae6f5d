package dev.efferent.conversations;

import dev.efferent.approvals.ApprovalSettings;
import dev.efferent.approvals.Approvals;
import dev.efferent.assistant.Assistant;
import dev.efferent.calls.Gateway;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.core.config.ConfigLoader;
import dev.efferent.core.tools.LocalTools;
import dev.efferent.protocol.ProtocolCodec;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskQueue;
import dev.efferent.queue.TaskStatus;
import dev.efferent.router.Queues;
import dev.efferent.router.Router;
import dev.efferent.router.RouterSettings;
import dev.efferent.router.Stores;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every command, its errors, and the checkpoint texts, over a real router running the real fs and shell tools. */
class CommandHandlerTest {
    private static final Conversation CHAT = new Conversation("test", "1");
    @TempDir
    Path root;
    private TaskQueue queue;
    private Router router;
    private CommandHandler handler;
    private Approvals approvals;

    private void start(boolean hands) {
        var config = ConfigLoader.load(Map.of("tools.roots", root.toString()), Map.of(), Map.of());
        queue = Queues.open(config, Queues.providers().build(), Clock.systemUTC());
        router = Router.start(RouterSettings.defaults().withHands(hands), queue, Stores.inMemory(),
                LocalTools.open(config),
                new ProtocolCodec(), Clock.systemUTC());
        approvals = new Approvals(router, ApprovalSettings.defaults(), Stores.inMemory(), Clock.systemUTC());
        handler = new CommandHandler(new Gateway(router, approvals), Assistant.COMMANDS_ONLY,
                Clock.systemUTC());
    }

    @AfterEach
    void stop() {
        approvals.close();
        router.close();
        queue.close();
    }

    private String say(String text) {
        return handler.handle(new IncomingMessage(CHAT, "me", text)).stream().map(OutgoingMessage::text)
                .collect(Collectors.joining("\n"));
    }

    private Task lastTask() {
        return router.newestTasks(Set.of(), 1).getFirst();
    }

    private Task awaitLast() throws Exception {
        return router.completion(lastTask().id()).get(20, TimeUnit.SECONDS);
    }

    @Test
    void helpListsEveryCommand() {
        start(false);
        String help = say("/help");
        for (String c : List.of("/tasks", "/queue", "/cancel", "/workers", "/nodes", "/worker", "/run", "/shell", "/read",
                "/ls", "/result")) {
            assertTrue(help.contains(c), c + " missing from\n" + help);
        }
    }

    @Test
    void shellReadLsAndRunSubmitTasksForThisConversation() throws Exception {
        start(false);
        Files.writeString(root.resolve("notes.txt"), "buy milk\n");
        assertTrue(say("/shell echo hi").startsWith("Running run_shell on brain ("));
        Task shell = awaitLast();
        assertEquals("test:1", shell.session().orElseThrow());
        assertTrue(shell.result().orElseThrow().contains("hi"));
        say("/read notes.txt");
        assertTrue(awaitLast().result().orElseThrow().contains("buy milk"));
        say("/ls");
        assertTrue(awaitLast().result().orElseThrow().contains("notes.txt"));
        say("/run stat {\"path\": \"notes.txt\"}");
        Task stat = awaitLast();
        assertEquals("stat", stat.tool());
        assertEquals(TaskStatus.COMPLETED, stat.status());
    }

    @Test
    void commandErrorsGiveAUsageLine() {
        start(false);
        assertEquals("Usage: /shell <command> — give the command to run.", say("/shell"));
        assertEquals("Usage: /read <path> — give the file to show.", say("/read"));
        assertEquals("Usage: /run <tool> <json> — name the tool.", say("/run"));
        assertTrue(say("/run stat {nope").startsWith("Usage: /run <tool> <json> — the params are not valid JSON"));
        assertEquals("Usage: /run <tool> <json> — the params must be a JSON object, like {\"path\": \"notes.txt\"}.",
                say("/run stat [1]"));
        assertTrue(say("/run teleport {}").startsWith("Unknown tool 'teleport'; known tools: ["), say("/run teleport {}"));
        assertTrue(say("/run read_file {}").startsWith("Invalid params for read_file: $: required property 'path'"));
        assertEquals("Usage: /cancel <id> — give one task id; /tasks lists them.", say("/cancel"));
        assertEquals("No task with id 'nope'.", say("/cancel nope"));
        assertEquals("Usage: /worker <name> — give one worker name; /workers lists them.", say("/worker"));
        assertTrue(say("/worker ghost").startsWith("No worker named 'ghost'"));
        assertEquals("Usage: /result <id> — give one task id.", say("/result"));
        assertEquals("Unknown command /frobnicate. Send /help for the list.", say("/frobnicate"));
    }

    @Test
    void freeTextGetsAHelpfulReply() {
        start(false);
        assertTrue(say("please tidy my downloads").contains("/help"));
        assertEquals("", say("   "));
    }

    @Test
    void tasksAndCancelInHandsModeWhileTheMachineIsOffline() {
        start(true);
        String queued = say("/shell sleep 5");
        assertTrue(queued.startsWith("Your machine is offline. I've queued this task ("), queued);
        String id = lastTask().id();
        String tasks = say("/queue");
        assertTrue(tasks.startsWith("Tasks:\n" + id + "  run_shell  queued, "), tasks);
        assertEquals("Cancelled task " + id + " (run_shell).", say("/cancel " + id));
        assertEquals("No tasks are queued or running.", say("/tasks"));
        assertTrue(say("/cancel " + id).contains("is already cancelled"));
    }

    @Test
    void workersInHandsModeWithNoneConnected() {
        start(true);
        String nodes = say("/nodes");
        assertEquals("Workers:\n● brain  this server: runs the brain's own tools, 0 running\nNo other machine has joined "
                + "yet: /pair gives a one-time code and the command to run on it.", nodes);
    }

    @Test
    void workersInSingleMachineModeAndTheWholeResult() throws Exception {
        start(false);
        assertEquals("Workers:\n● brain  this server: runs every tool (single-machine mode), 0 running",
                say("/workers"));
        say("/shell seq 1 500");
        String full = say("/result " + awaitLast().id());
        assertTrue(full.contains("\n500"), full);
        assertEquals("No task with id 'nope'.", say("/result nope"));
    }

    @Test
    void checkpointTexts() throws Exception {
        start(false);
        assertEquals("[🔄 40%] compiling", Checkpoints.progress("t1", 40, "compiling").text());
        assertEquals("[🔄] working", Checkpoints.progress("t1", 0, "").text());
        assertEquals("[🔄] 3 lines, 1 s: step 3", Checkpoints.progress("t1", 0, "3 lines, 1 s: step 3").text());
        say("/shell seq 1 200");
        Task done = awaitLast();
        List<OutgoingMessage> finished = new Checkpoints(200).finished(done);
        String text = finished.getFirst().text();
        assertTrue(text.startsWith("[✅ Complete] run_shell (" + done.id() + ") in "), text);
        assertTrue(text.endsWith(" more characters; send /result " + done.id() + " for all of it"), text);
        say("/shell exit 3");
        assertTrue(new Checkpoints(200).finished(awaitLast()).getFirst().text().startsWith("[❌ Failed] run_shell"));
        say("/read missing.txt");
        Task failed = awaitLast();
        assertEquals("[❌ Failed] read_file (" + failed.id() + "): file 'missing.txt' does not exist",
                new Checkpoints(200).finished(failed).getFirst().text());
    }
}
