package dev.efferent.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.approvals.policy.Call;
import dev.efferent.approvals.policy.Decision;
import dev.efferent.approvals.policy.Verdict;
import dev.efferent.calls.Audience;
import dev.efferent.calls.Gateway;
import dev.efferent.calls.Origin;
import dev.efferent.calls.Outcome;
import dev.efferent.core.tools.ParamsSchema;
import dev.efferent.model.spi.ModelTool;
import dev.efferent.model.spi.ToolCall;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.queue.Task;
import dev.efferent.router.RouterException;
import dev.efferent.router.Submission;
import dev.efferent.router.TaskRequest;
import dev.efferent.router.ToolInfo;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;

/**
 * The brain's tool catalogue as the model sees it, and a model's tool call turned into a task through the router,
 * exactly as {@code /run} does; what a task returned turned into the text the model reads.
 */
final class Toolbox {
    private static final System.Logger LOG = System.getLogger(Toolbox.class.getName());
    /** The argument, added where more than one machine has a tool, that chooses the machine. */
    static final String WORKER = Gateway.MACHINE_ARGUMENT;

    private final Gateway gateway;
    private final ObjectMapper json;
    private final int maxResultChars;
    /** Compiled schemas by descriptor; a descriptor that changes (a new version of the tool) compiles anew. */
    private final Map<ToolDescriptor, Optional<ParamsSchema>> schemas =
            Collections.synchronizedMap(new WeakHashMap<>());

    Toolbox(Gateway gateway, ObjectMapper json, int maxResultChars) {
        this.gateway = gateway;
        this.json = json;
        this.maxResultChars = maxResultChars;
    }

    /** A tool the model may call, and the machines that have it. */
    record Offered(ToolInfo info, List<String> machines, ModelTool tool) {
    }

    /** Every tool of every worker seen, and the brain's own, by name, as the assistant's model sees them. */
    Map<String, Offered> catalogue() {
        Map<String, Offered> offered = new LinkedHashMap<>();
        gateway.catalogue(Audience.ASSISTANT).forEach((name, o) -> offered.put(name, new Offered(o.info(),
                o.machines(), new ModelTool(name, o.info().descriptor().description(), o.schema().toString()))));
        return offered;
    }

    /** What came of starting a call: an answer for the model at once, or a task to wait for. */
    sealed interface Started {
        record Answered(String content) implements Started {
        }

        record Submitted(Submission submission, Verdict verdict, Call call) implements Started {
        }
    }

    /**
     * Starts {@code call} as {@code origin}'s task; bad calls (unknown tool, arguments that are not a JSON
     * object or that its schema refuses, an unknown machine) are answered at once, for the model to correct.
     * {@code pinned} is the machine a call that names none runs on (a sub-agent's), empty for none; {@code askFirst}
     * holds it for a yes where the policy would let it run (an automation's step marked so).
     */
    Started start(Origin origin, ToolCall call, Map<String, Offered> catalogue, String pinned, boolean askFirst) {
        Offered offered = catalogue.get(call.name());
        if (offered == null) {
            return new Started.Answered("There is no tool named '" + call.name() + "'. The tools are: "
                    + String.join(", ", catalogue.keySet()) + ".");
        }
        JsonNode parsed;
        try {
            parsed = json.readTree(call.arguments());
        } catch (JsonProcessingException e) {
            return new Started.Answered("The arguments are not valid JSON (" + e.getOriginalMessage()
                    + "). Call " + call.name() + " again with a JSON object that matches its schema.");
        }
        if (parsed == null || !parsed.isObject()) {
            return new Started.Answered("The arguments must be a JSON object that matches the schema of "
                    + call.name() + ", got: " + call.arguments());
        }
        ObjectNode params = (ObjectNode) parsed;
        Optional<String> worker = Optional.empty();
        if (!Gateway.ownsMachineArgument(offered.info().descriptor()) && params.has(WORKER)) {
            worker = Optional.of(params.remove(WORKER).asText());
        } else {
            // A sub-agent started for one machine runs its calls there unless a call names another.
            worker = Optional.of(pinned).filter(p -> !p.isEmpty());
        }
        // Checked here, not only at dispatch: a call for an offline machine would otherwise wait to be refused.
        List<String> problems = schemaOf(offered).map(s -> s.validate(params)).orElse(List.of());
        if (!problems.isEmpty()) {
            return new Started.Answered("The arguments do not match the schema of " + call.name() + ": "
                    + String.join("; ", problems) + ".");
        }
        // Judged for every machine the call could run on: the named one, else any that has the tool (the active
        // machine is only preferred).
        Optional<String> named = worker.map(w -> gateway.machineNamed(w).orElse(w));
        Gateway.Judgement judgement = named.isPresent()
                ? gateway.judge(origin, offered.info().descriptor(), params, named.get())
                : gateway.judge(origin, offered.info().descriptor(), params, offered.machines());
        Call judged = judgement.call();
        Optional<String> machine = judged.machine();
        Verdict verdict = judgement.verdict();
        if (askFirst && verdict.decision() == Decision.ALLOW) {
            verdict = new Verdict(Decision.ASK, "this step is marked approval: required");
        }
        if (verdict.decision() == Decision.DENY) {
            return new Started.Answered("Refused by the approval policy (" + verdict.why() + "); do not try "
                    + "another way around it.");
        }
        if (verdict.decision() == Decision.ASK && !origin.standing().mayWaitForYes()) {
            return new Started.Answered("Refused: the approval policy asks for a yes (" + verdict.why() + "), and "
                    + "no one can be asked here.");
        }
        TaskRequest request = TaskRequest.of(call.name(), params);
        if (schemaOf(offered).isPresent()) {
            // Checked once: a worker whose copy of the tool is the one just checked against is not checked again.
            request = request.checkedAgainst(offered.info().descriptor());
        }
        if (worker.isPresent()) {
            request = request.onWorker(worker.get());
        } else if (verdict.decision() == Decision.ASK && machine.isPresent()) {
            // A yes is for this machine: the held call runs there and nowhere else.
            request = request.onWorker(machine.get());
        }
        if (verdict.decision() == Decision.ASK) {
            request = request.heldForApproval();
        }
        try {
            return new Started.Submitted(gateway.submit(origin, request), verdict, judged);
        } catch (RouterException e) {
            if (e.kind() == RouterException.Kind.BAD_REQUEST) {
                return new Started.Answered("The call was refused: " + e.getMessage() + ".");
            }
            throw e;
        }
    }

    /** The tool's schema, compiled once per descriptor; empty if it cannot be (the worker's check still applies). */
    private Optional<ParamsSchema> schemaOf(Offered offered) {
        return schemas.computeIfAbsent(offered.info().descriptor(), d -> {
            try {
                return Optional.of(ParamsSchema.compile(d.inputSchema()));
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "The schema of " + d.name() + " cannot be compiled: "
                        + e.getMessage());
                return Optional.empty();
            }
        });
    }

    /** What a finished task says to the model: its text, images named, cut at the configured size. */
    String content(Task task) {
        return switch (Outcome.ofFinished(task)) {
            case Outcome.Completed c -> cut(c.text().isBlank() ? "(no output)" : c.text(), task.id());
            case Outcome.Cancelled c -> "Not run: " + c.reason() + ".";
            case Outcome.Failed f -> "The task failed: " + f.error() + ".";
        };
    }

    /** Whether a finished task's result is an error. */
    boolean failed(Task task) {
        return !Outcome.ofFinished(task).ok();
    }

    private String cut(String text, String taskId) {
        if (text.length() <= maxResultChars) {
            return text;
        }
        return text.substring(0, maxResultChars) + "\n[… cut: " + (text.length() - maxResultChars)
                + " more characters; the whole result is task " + taskId + "]";
    }
}
