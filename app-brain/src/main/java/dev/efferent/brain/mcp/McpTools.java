package dev.efferent.brain.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.approvals.policy.Decision;
import dev.efferent.approvals.policy.Verdict;
import dev.efferent.calls.Gateway;
import dev.efferent.calls.Origin;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.queue.Task;
import dev.efferent.router.Router;
import dev.efferent.router.Submission;
import dev.efferent.router.TaskRequest;
import dev.efferent.router.ToolInfo;
import dev.efferent.router.WorkerInfo;

import java.util.List;
import java.util.Optional;

/**
 * The brain's catalogue as MCP tools, and an MCP {@code tools/call} as a task: every tool of every machine, with a
 * {@code worker} argument that picks the machine, judged by the approval policy as the assistant's calls are.
 */
final class McpTools {
    /** The argument that picks the machine, added to each tool's schema unless the tool has its own. */
    static final String WORKER = "worker";

    private final Gateway gateway;
    private final Router router;
    private final ObjectMapper json;

    McpTools(Gateway gateway, ObjectMapper json) {
        this.gateway = gateway;
        this.router = gateway.router();
        this.json = json;
    }

    /** {@code tools/list}: every tool the brain knows, each with the machines that have it. */
    ObjectNode list() {
        ObjectNode result = json.createObjectNode();
        ArrayNode tools = result.putArray("tools");
        List<WorkerInfo> workers = router.workers();
        for (ToolInfo info : router.tools()) {
            ToolDescriptor d = info.descriptor();
            ObjectNode schema = d.inputSchema().deepCopy();
            if (!schema.has("type")) {
                schema.put("type", "object");
            }
            ObjectNode properties = schema.path("properties").isObject() ? (ObjectNode) schema.get("properties")
                    : schema.putObject("properties");
            if (!properties.has(WORKER)) {
                ObjectNode worker = properties.putObject(WORKER).put("type", "string").put("description",
                        "The machine to run it on; without it, any that has the tool.");
                List<String> machines = machines(info, workers);
                if (!machines.isEmpty()) {
                    machines.forEach(worker.withArray("enum")::add);
                }
            }
            ObjectNode tool = tools.addObject().put("name", d.name()).put("description", d.description());
            tool.set("inputSchema", schema);
            tool.putObject("annotations").put("readOnlyHint", d.readOnly()).put("destructiveHint", d.destructive())
                    .put("idempotentHint", d.idempotent()).put("openWorldHint", d.openWorld());
        }
        return result;
    }

    /** The machines that have {@code info}'s tool, each name once; the brain itself only for tools that need none. */
    private List<String> machines(ToolInfo info, List<WorkerInfo> workers) {
        return gateway.machines(info, workers).stream().distinct().toList();
    }

    /** What a {@code tools/call} becomes: a task to run, or an answer at once. */
    sealed interface Prepared {
        /** Submit {@code request} as {@code origin}'s ({@link #submit}). */
        record Run(Origin origin, TaskRequest request) implements Prepared {
        }

        /** Refused, with a reason for the client (a tool result with {@code isError}). */
        record Refused(String reason) implements Prepared {
        }

        /** A request that is wrong: a JSON-RPC error {@code -32602} with {@code message}. */
        record Invalid(String message) implements Prepared {
        }
    }

    /**
     * Reads {@code tools/call}'s params: the tool, its arguments, the machine; judged by the approval policy as
     * {@code origin}'s call.
     */
    Prepared prepare(JsonNode params, Origin origin) {
        String name = params.path("name").asText("");
        Optional<ToolInfo> info = router.tools().stream().filter(t -> t.descriptor().name().equals(name)).findFirst();
        if (info.isEmpty()) {
            return new Prepared.Invalid("Unknown tool '" + name + "'; tools/list lists them");
        }
        ToolDescriptor d = info.get().descriptor();
        JsonNode arguments = params.path("arguments");
        if (!arguments.isMissingNode() && !arguments.isNull() && !arguments.isObject()) {
            return new Prepared.Invalid("'arguments' must be an object");
        }
        ObjectNode args = arguments.isObject() ? ((ObjectNode) arguments).deepCopy() : json.createObjectNode();
        Optional<String> worker = Optional.empty();
        if (!info.get().descriptor().inputSchema().path("properties").has(WORKER) && args.has(WORKER)) {
            JsonNode w = args.remove(WORKER);
            if (!w.isTextual() || w.asText().isBlank()) {
                return new Prepared.Invalid("'worker' must name a machine");
            }
            // Judged and run by its name: a rule names machines by name, and the router would take an id too.
            String given = w.asText();
            Optional<String> machine = router.workers().stream().filter(m -> m.id().equals(given) || m.name().equals(given))
                    .map(WorkerInfo::name).findFirst();
            if (machine.isEmpty() || !machines(info.get(), router.workers()).contains(machine.get())) {
                return new Prepared.Refused("No machine named '" + given + "' has " + d.name()
                        + "; the machines that have it: " + String.join(", ", machines(info.get(), router.workers()))
                        + ".");
            }
            worker = machine;
        }
        // Judged for the machine named, else for every machine that has the tool: the strictest answer holds.
        List<String> candidates = worker.map(List::of).orElseGet(() -> machines(info.get(), router.workers()));
        Verdict verdict = gateway.judge(origin, d, args, worker, candidates).verdict();
        if (verdict.decision() == Decision.DENY) {
            return new Prepared.Refused("Refused by the brain's approval policy: " + verdict.why() + ".");
        }
        if (verdict.decision() == Decision.ASK) {
            // No one can be asked over MCP: the person says yes in a chat, or with a rule.
            return new Prepared.Refused("This call needs the user's yes (the brain's approval policy: "
                    + verdict.why() + "); over MCP no one can be asked. Ask the user to run it in the brain's "
                    + "console or chat, or to allow it with a rule in approvals.rules.");
        }
        TaskRequest request = TaskRequest.of(name, args);
        return new Prepared.Run(origin, worker.map(request::onWorker).orElse(request));
    }

    /** Submits a prepared call as its origin's. */
    Submission submit(Prepared.Run run) {
        return gateway.submit(run.origin(), run.request());
    }

    /** A finished task as an MCP {@code CallToolResult}. */
    ObjectNode result(Task task) {
        return switch (task.status()) {
            case COMPLETED -> task.result().map(this::stored).orElseGet(() -> text("", false));
            case CANCELLED -> text("Not run: " + task.error().orElse("cancelled") + ".", true);
            default -> text("The task failed: " + task.error().orElse("no reason given") + ".", true);
        };
    }

    private ObjectNode stored(String result) {
        try {
            JsonNode r = json.readTree(result);
            ObjectNode out = json.createObjectNode();
            out.set("content", r.path("content").isArray() ? r.get("content") : json.createArrayNode());
            if (r.path("structuredContent").isObject()) {
                out.set("structuredContent", r.get("structuredContent"));
            }
            out.put("isError", r.path("isError").asBoolean(false));
            return out;
        } catch (JsonProcessingException e) {
            return text(result, false);
        }
    }

    /** A result of one text. */
    ObjectNode text(String text, boolean error) {
        ObjectNode out = json.createObjectNode();
        out.putArray("content").addObject().put("type", "text").put("text", text);
        return out.put("isError", error);
    }
}
