package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.efferent.model.scripted.Received;
import dev.efferent.model.scripted.ScriptedModelServer;
import dev.efferent.model.scripted.Step;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sub-agents over REST, with a real worker and a scripted model that plays the parent and its children: three
 * children read a file each on the worker and their results reach the parent conversation; a fourth beyond the
 * limit is refused with the reason; a child cannot start one of its own.
 */
class SubAgentsTest extends BrainFixture {
    private static final Pattern FILE = Pattern.compile("Read (\\w+\\.txt)");
    private ScriptedModelServer model;

    @BeforeEach
    void startModel() throws Exception {
        model = ScriptedModelServer.start();
    }

    @AfterEach
    void stopModel() {
        model.close();
    }

    private static String system(Received r) {
        return r.body().path("messages").path(0).path("content").asText();
    }

    private static List<String> toolNames(Received r) {
        List<String> names = new ArrayList<>();
        r.body().path("tools").forEach(t -> names.add(t.path("function").path("name").asText()));
        return names;
    }

    /** The tool results of the request's last exchange, in order. */
    private static List<String> toolResults(Received r) {
        List<String> results = new ArrayList<>();
        for (JsonNode m : r.body().path("messages")) {
            if (m.path("role").asText().equals("tool")) {
                results.add(m.path("content").asText());
            }
        }
        return results;
    }

    @Test
    void threeChildrenReadAFileEachAndReportToTheParentAFourthIsRefusedAndAChildCannotSpawn() throws Exception {
        startBrain(true, Map.of("model.base-url", model.openAiBaseUrl(), "model.name", "scripted",
                "agent.max-children", "3"));
        Path root = dir.resolve("laptop-root");
        Files.createDirectories(root);
        Files.writeString(root.resolve("a.txt"), "alpha\n");
        Files.writeString(root.resolve("b.txt"), "beta\n");
        Files.writeString(root.resolve("c.txt"), "gamma\n");
        startWorker("laptop", root, Map.of());
        awaitWorker("laptop", true, 30);

        // The children wait until the parent has heard about all four spawns: the fourth finds three running.
        CountDownLatch parentHeard = new CountDownLatch(1);
        List<Received> children = new CopyOnWriteArrayList<>();
        List<Received> parent = new CopyOnWriteArrayList<>();
        model.otherwise(r -> {
            if (system(r).contains("You are a sub-agent")) {
                children.add(r);
                awaitQuietly(parentHeard);
                String last = r.lastMessageText();
                Matcher file = FILE.matcher(r.body().path("messages").path(1).path("content").asText());
                file.find();
                if (last.startsWith("Read ") && file.group(1).equals("c.txt")) {
                    return Step.Reply.call("spawn_agent", "{\"task\": \"Read c.txt for me\"}");
                }
                if (last.startsWith("Read ") || last.contains("Refused: a sub-agent cannot")) {
                    return Step.Reply.call("read_file", "{\"path\": \"" + file.group(1) + "\"}");
                }
                return Step.Reply.text(file.group(1) + " says " + last.strip());
            }
            parent.add(r);
            String last = r.lastMessageText();
            if (last.startsWith("Read the three files")) {
                return Step.Reply.calls(List.of(
                        new Step.Call("s1", "spawn_agent", "{\"task\": \"Read a.txt and answer with what it says\"}"),
                        new Step.Call("s2", "spawn_agent", "{\"task\": \"Read b.txt and answer with what it says\", "
                                + "\"tools\": [\"read_file\"], \"worker\": \"laptop\"}"),
                        new Step.Call("s3", "spawn_agent", "{\"task\": \"Read c.txt and answer with what it says\"}"),
                        new Step.Call("s4", "spawn_agent", "{\"task\": \"Read d.txt and answer with what it says\"}")));
            }
            if (last.startsWith("What did they find")) {
                return Step.Reply.call("agent_status", "{}");
            }
            if (r.body().path("messages").path(r.body().path("messages").size() - 1).path("role").asText()
                    .equals("tool") && toolResults(r).size() == 4) {
                parentHeard.countDown();
                return Step.Reply.text("Three sub-agents are reading.");
            }
            return Step.Reply.text("They found: " + last);
        });

        JsonNode turn = call("POST", "/api/v1/conversations/sub1/messages?wait=30",
                "{\"text\": \"Read the three files a.txt, b.txt and c.txt in parallel\"}", 200);
        assertTrue(turn.toString().contains("Three sub-agents are reading."), turn.toString());
        List<String> spawned = toolResults(parent.get(1));
        for (int i = 0; i < 3; i++) {
            assertTrue(spawned.get(i).startsWith("Started sub-agent a-"), spawned.toString());
        }
        assertEquals("Refused: this conversation already has 3 sub-agents running, the most it may have "
                + "(agent.max-children); wait for one to finish (agent_status) or do the task yourself.",
                spawned.get(3));

        for (String said : List.of("a.txt says alpha", "b.txt says beta", "c.txt says gamma")) {
            awaitMessage("sub1", said);
        }
        JsonNode history = call("GET", "/api/v1/conversations/sub1/messages", null, 200);
        assertEquals(3, history.toString().split("finished \\(Read", -1).length - 1, history.toString());

        // The children had the machines' tools only, and the one given read_file alone had only that.
        for (Received child : children) {
            assertFalse(toolNames(child).contains("spawn_agent"), toolNames(child).toString());
            assertFalse(toolNames(child).contains("ask_human"));
        }
        assertTrue(children.stream().anyMatch(c -> toolNames(c).equals(List.of("read_file"))));
        assertTrue(children.stream().anyMatch(c -> c.lastMessageText().contains("Refused: a sub-agent cannot start "
                + "or follow sub-agents (one level deep only)")), "the child's spawn was refused");
        assertTrue(toolNames(parent.getFirst()).containsAll(List.of("spawn_agent", "agent_status", "read_file")));

        // Every call the children made ran on the worker.
        JsonNode tasks = call("GET", "/api/v1/tasks?status=completed", null, 200).path("tasks");
        assertEquals(3, tasks.size(), tasks.toString());
        tasks.forEach(t -> assertEquals("laptop", t.path("runningOn").asText()));

        String listed = lastReply(call("POST", "/api/v1/conversations/sub1/messages?wait=30",
                "{\"text\": \"/agents\"}", 200));
        assertEquals(4, listed.lines().count(), listed);
        assertEquals(3, listed.split("  done  ", -1).length - 1, listed);

        String found = lastReply(call("POST", "/api/v1/conversations/sub1/messages?wait=30",
                "{\"text\": \"What did they find?\"}", 200));
        assertTrue(found.contains("alpha") && found.contains("beta") && found.contains("gamma"), found);
    }

    @Test
    void theOverallLimitHoldsAcrossConversationsAndStopEndsAStuckChild() throws Exception {
        startBrain(false, Map.of("model.base-url", model.openAiBaseUrl(), "model.name", "scripted",
                "agent.max-concurrent-children", "1"));
        model.otherwise(r -> {
            if (system(r).contains("You are a sub-agent")) {
                // A child whose model never answers: only /stop ends it.
                return new Step.Hang(Duration.ofSeconds(60));
            }
            if (r.lastMessageText().startsWith("Look")) {
                return Step.Reply.call("spawn_agent", "{\"task\": \"Look around\"}");
            }
            return Step.Reply.text("Said: " + r.lastMessageText());
        });
        String first = lastReply(call("POST", "/api/v1/conversations/one/messages?wait=30",
                "{\"text\": \"Look around\"}", 200));
        assertTrue(first.startsWith("Said: Started sub-agent a-"), first);
        String second = lastReply(call("POST", "/api/v1/conversations/two/messages?wait=30",
                "{\"text\": \"Look around too\"}", 200));
        assertEquals("Said: Refused: 1 sub-agent is running across all conversations, the most there may be "
                + "(agent.max-concurrent-children); wait for one to finish or do the task yourself.", second);

        String stopped = lastReply(call("POST", "/api/v1/conversations/one/messages?wait=30",
                "{\"text\": \"/stop\"}", 200));
        assertEquals("Stopped 1 sub-agent.", stopped);
        awaitMessage("one", "stopped (Look around):");
        assertTrue(lastReply(call("POST", "/api/v1/conversations/one/messages?wait=30",
                "{\"text\": \"/agents\"}", 200)).contains("  stopped  Look around"));
        String again = lastReply(call("POST", "/api/v1/conversations/two/messages?wait=30",
                "{\"text\": \"Look around now\"}", 200));
        assertTrue(again.startsWith("Said: Started sub-agent a-"), "a place is free again: " + again);
    }

    @Test
    void aChildsQuestionIsAskedInItsParentsConversationAndAnsweredThere() throws Exception {
        startBrain(false, Map.of("model.base-url", model.openAiBaseUrl(), "model.name", "scripted"));
        model.otherwise(r -> {
            if (system(r).contains("You are a sub-agent")) {
                // write_file asks by default: the child's call waits for a yes.
                return r.lastMessageText().startsWith("Write")
                        ? Step.Reply.call("write_file", "{\"path\": \"child.txt\", \"content\": \"from the child\"}")
                        : Step.Reply.text("Wrote it: " + r.lastMessageText());
            }
            return r.lastMessageText().startsWith("Write")
                    ? Step.Reply.call("spawn_agent", "{\"task\": \"Write child.txt\"}")
                    : Step.Reply.text("Said: " + r.lastMessageText());
        });
        call("POST", "/api/v1/conversations/q1/messages?wait=30", "{\"text\": \"Write it with a helper\"}", 200);
        JsonNode history = awaitMessage("q1", "Allow write_file");
        String asked = null;
        for (JsonNode m : history.path("messages")) {
            if (m.path("text").asText().startsWith("Allow write_file")) {
                asked = m.path("text").asText();
            }
        }
        String id = asked.substring(asked.indexOf("(task ") + 6, asked.indexOf(")", asked.indexOf("(task ")));
        assertTrue(lastReply(call("POST", "/api/v1/conversations/q1/messages?wait=30", "{\"text\": \"/approvals\"}",
                200)).contains(id), "listed where it was asked");
        assertTrue(lastReply(call("POST", "/api/v1/conversations/q1/messages?wait=30", "{\"text\": \"/approve " + id
                + "\"}", 200)).startsWith("Allowed"));
        awaitMessage("q1", "Wrote it:");
        assertEquals("from the child", Files.readString(brainRoot().resolve("child.txt")));
        // Another conversation cannot answer it.
        String other = lastReply(call("POST", "/api/v1/conversations/q2/messages?wait=30", "{\"text\": \"/approve "
                + id + "\"}", 200));
        assertTrue(other.startsWith("No task with id"), other);
    }

    private static String lastReply(JsonNode turn) {
        JsonNode replies = turn.path("replies");
        return replies.get(replies.size() - 1).path("text").asText();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
