package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Over real sockets: one worker cannot speak for another's tasks, nor take over a live worker's id. */
class WorkerTrustTest extends BrainFixture {
    private static final String TOOLS = "[{\"name\":\"read_file\",\"inputSchema\":{\"type\":\"object\"},"
            + "\"placement\":\"LOCAL\",\"annotations\":{\"readOnlyHint\":true}}]";

    private static String result(String taskId, String text) {
        return "{\"type\":\"task:result\",\"taskId\":\"" + taskId + "\",\"status\":\"completed\",\"durationMs\":1,"
                + "\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"" + text + "\"}],\"isError\":false}}";
    }

    @Test
    void aForgedResultFromASecondWorkerIsRefusedAndTheRealOneIsStored() throws Exception {
        startBrain(true, Map.of());
        RawWorker w1 = RawWorker.connect(brain.port(), SECRET);
        w1.register("w1", TOOLS);
        w1.next("worker:ack");
        w1.heartbeating();
        RawWorker rogue = RawWorker.connect(brain.port(), SECRET);
        rogue.register("rogue", TOOLS);
        rogue.next("worker:ack");
        rogue.heartbeating();

        String id = submit("{\"tool\":\"read_file\",\"params\":{\"path\":\"a\"},\"worker\":\"w1\"}").path("id").asText();
        JsonNode dispatch = w1.next("task:dispatch");
        w1.send("{\"type\":\"task:accepted\",\"taskId\":\"" + id + "\"}");
        awaitStatus(id, "running", 10);

        rogue.send(result(id, "forged"));
        JsonNode refused = rogue.next("error");
        assertEquals("unknown_task", refused.path("code").asText());
        assertEquals("task:result: task " + id + " was not dispatched to this worker", refused.path("message").asText());
        assertEquals("running", task(id).path("status").asText());

        w1.send(result(dispatch.path("taskId").asText(), "the real one"));
        assertEquals(id, w1.next("task:result:ack").path("taskId").asText());
        JsonNode done = awaitStatus(id, "completed", 10);
        assertEquals("the real one", done.path("output").asText());
    }

    @Test
    void aSecondConnectionWithALiveWorkersIdIsRefusedAndTheWorkerKeepsItsLink() throws Exception {
        startBrain(true, Map.of());
        RawWorker laptop = RawWorker.connect(brain.port(), SECRET);
        laptop.register("laptop", TOOLS);
        laptop.next("worker:ack");
        laptop.heartbeating();

        RawWorker impostor = RawWorker.connect(brain.port(), SECRET);
        impostor.register("laptop", TOOLS);
        JsonNode refused = impostor.next("error");
        assertTrue(refused.path("message").asText().startsWith("worker:register: worker id 'laptop' is already "
                + "connected and answering"), refused.toString());
        assertEquals(1008, impostor.closed.get(10, TimeUnit.SECONDS));
        assertFalse(laptop.closed.isDone(), "the live worker keeps its connection");
        awaitWorker("laptop", true, 5);
    }
}
