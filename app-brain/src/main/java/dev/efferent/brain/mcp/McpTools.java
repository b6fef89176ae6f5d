package dev.efferent.brain.mcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.approvals.policy.Decision;
import dev.efferent.approvals.policy.Verdict;
import dev.efferent.calls.Audience;
import dev.efferent.calls.Gateway;
import dev.efferent.calls.Origin;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.queue.Task;
import dev.efferent.router.Submission;
import dev.efferent.router.TaskRequest;

import java.util.Optional;

/**
 * The brain's catalogue as MCP tools, and an MCP {@code tools/call} as a task: every tool of every machine, with a
 * {@code worker} argument that picks the machine, judged by the approval policy as the assistant's calls are.
 */
final class McpTools {
    /** The argument that picks the machine, added to each tool's schema unless the tool has its own. */
    static final String WORKER = Gateway.MACHINE_ARGUMENT;

    private final Gateway gateway;
    private final ObjectMapper json;

    McpTools(Gateway gateway, ObjectMapper json) {
        this.gateway = gateway;
        this.json = json;
    }

    /** {@code tools/list}: every tool the brain knows, each with the machines that have it. */
    ObjectNode list() {
        ObjectNode result = json.createObjectNode();
        ArrayNode tools = result.putArray("tools");
        for (Gateway.Offered offered : gateway.catalogue(Audience.MCP).values()) {
            ToolDescriptor d = offered.info().descriptor();
            ObjectNode tool = tools.addObject().put("name", d.name()).put("description", d.description());
            tool.set("inputSchema", offered.schema());
            tool.putObject("annotations").put("readOnlyHint", d.readOnly()).put("destructiveHint", d.destructive())
                    .put("idempotentHint", d.idempotent()).put("openWorldHint", d.openWorld());
        }
        return result;
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
        Gateway.Offered offered = gateway.catalogue(Audience.MCP).get(name);
        if (offered == null) {
            return new Prepared.Invalid("Unknown tool '" + name + "'; tools/list lists them");
        }
        ToolDescriptor d = offered.info().descriptor();
        JsonNode arguments = params.path("arguments");
        if (!arguments.isMissingNode() && !arguments.isNull() && !arguments.isObject()) {
            return new Prepared.Invalid("'arguments' must be an object");
        }
        ObjectNode args = arguments.isObject() ? ((ObjectNode) arguments).deepCopy() : json.createObjectNode();
        Optional<String> worker = Optional.empty();
        if (!Gateway.ownsMachineArgument(d) && args.has(WORKER)) {
            JsonNode w = args.remove(WORKER);
            if (!w.isTextual() || w.asText().isBlank()) {
                return new Prepared.Invalid("'worker' must name a machine");
            }
            // Judged and run by its name: a rule names machines by name, and the router would take an id too.
            String given = w.asText();
            Optional<String> machine = gateway.machineNamed(given);
            if (machine.isEmpty() || !offered.machines().contains(machine.get())) {
                return new Prepared.Refused("No machine named '" + given + "' has " + d.name()
                        + "; the machines that have it: " + String.join(", ", offered.machines()) + ".");
            }
            worker = machine;
        }
        // Judged for the machine named, else for every machine that has the tool: the strictest answer holds.
        Verdict verdict = (worker.isPresent() ? gateway.judge(origin, d, args, worker.get())
                : gateway.judge(origin, d, args, offered.machines())).verdict();
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
