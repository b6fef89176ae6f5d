package dev.efferent.brain;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.core.tools.ToolResultJson;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.queue.Progress;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskStatus;
import dev.efferent.router.ToolInfo;
import dev.efferent.router.WorkerInfo;

import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/** The JSON the REST API answers with. */
public final class Views {
    private final ObjectMapper json;

    public Views(ObjectMapper json) {
        this.json = json;
    }

    /** A task; {@code workerName} turns worker ids into the names users know. */
    /** {@link #task(Task, Function)}, with the last progress of a running task. */
    public ObjectNode task(Task t, Function<String, String> workerName, Progress progress) {
        ObjectNode v = task(t, workerName);
        // Only while it runs: a task that has just ended, or gone back to the queue, shows no stale progress.
        if (t.status() == TaskStatus.RUNNING) {
            v.putObject("progress").put("percent", progress.percent()).put("message", progress.message())
                    .put("at", progress.at().toString());
        }
        return v;
    }

    public ObjectNode task(Task t, Function<String, String> workerName) {
        ObjectNode v = json.createObjectNode();
        v.put("id", t.id());
        v.put("tool", t.tool());
        v.put("status", t.status().name().toLowerCase(Locale.ROOT));
        v.set("params", parse(t.params()));
        v.put("priority", t.priority());
        v.put("attempt", t.attempt());
        v.put("maxAttempts", t.maxAttempts());
        v.put("timeoutMs", t.timeout().toMillis());
        t.targetWorker().ifPresent(w -> v.put("worker", workerName.apply(w)));
        t.leaseOwner().ifPresent(w -> v.put("runningOn", workerName.apply(w)));
        t.session().ifPresent(r -> v.put("session", r));
        v.put("createdAt", t.createdAt().toString());
        v.put("updatedAt", t.updatedAt().toString());
        t.finishedAt().ifPresent(f -> v.put("finishedAt", f.toString()));
        t.result().ifPresent(r -> {
            JsonNode result = parse(r);
            v.set("result", result);
            v.put("output", ToolResultJson.text(result));
        });
        t.error().ifPresent(e -> v.put("error", e));
        return v;
    }

    public ObjectNode worker(WorkerInfo w) {
        ObjectNode v = json.createObjectNode();
        v.put("id", w.id());
        v.put("name", w.name());
        v.put("hostname", w.hostname());
        v.put("platform", w.platform());
        v.put("local", w.local());
        v.put("online", w.online());
        v.put("connectedAt", w.connectedAt().toString());
        v.put("lastHeartbeat", w.lastHeartbeat().toString());
        v.put("runningTasks", w.runningTasks());
        v.put("maxConcurrency", w.maxConcurrency());
        v.put("loadAverage", w.loadAverage());
        ArrayNode tools = v.putArray("tools");
        w.tools().forEach(tools::add);
        return v;
    }

    public ObjectNode tool(ToolInfo t) {
        ToolDescriptor d = t.descriptor();
        ObjectNode v = json.createObjectNode();
        v.put("name", d.name());
        v.put("description", d.description());
        v.set("inputSchema", d.inputSchema());
        v.put("placement", t.placement().name());
        ObjectNode hints = v.putObject("annotations");
        hints.put("readOnlyHint", d.readOnly());
        hints.put("destructiveHint", d.destructive());
        hints.put("idempotentHint", d.idempotent());
        hints.put("openWorldHint", d.openWorld());
        ArrayNode workers = v.putArray("workers");
        t.workers().forEach(workers::add);
        if (!t.origin().isEmpty()) {
            v.put("origin", t.origin());
        }
        return v;
    }

    public ObjectNode error(int status, String message) {
        return json.createObjectNode().put("status", status).put("error", message);
    }

    ObjectNode object(Map<String, ?> values) {
        return json.valueToTree(values);
    }

    private JsonNode parse(String text) {
        try {
            return json.readTree(text);
        } catch (JsonProcessingException e) {
            // Params and results are stored as JSON; anything else is shown as the text it is.
            return json.getNodeFactory().textNode(text);
        }
    }
}
