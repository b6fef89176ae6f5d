package dev.efferent.calls;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.approvals.Approvals;
import dev.efferent.approvals.policy.Call;
import dev.efferent.approvals.policy.Decision;
import dev.efferent.approvals.policy.Verdict;
import dev.efferent.protocol.ToolDescriptor;
import dev.efferent.router.Router;
import dev.efferent.router.Submission;
import dev.efferent.router.TaskRequest;
import dev.efferent.router.ToolInfo;
import dev.efferent.router.WorkerInfo;
import dev.efferent.tools.spi.Placement;
import dev.efferent.tools.spi.ToolHints;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The front door every tool call goes through, whoever makes it: the machines that can take a call, the approval
 * policy's verdict on it (the only place the policy is asked), and its submission as its {@link Origin}'s, with that
 * origin's session, key and record.
 */
public final class Gateway {
    /**
     * The argument a caller names a machine with, added to a tool's schema where it has none of its own
     * ({@link #catalogue}) and taken off the arguments before the tool sees them.
     */
    public static final String MACHINE_ARGUMENT = "worker";

    private final Router router;
    private final Approvals approvals;

    public Gateway(Router router, Approvals approvals) {
        this.router = router;
        this.approvals = approvals;
    }

    /** The router calls go to. */
    public Router router() {
        return router;
    }

    /** The approvals whose policy judges calls, and that hold the calls waiting for a yes. */
    public Approvals approvals() {
        return approvals;
    }

    /**
     * The machines among {@code workers} that have {@code tool}, by name, one entry per worker (two workers may share
     * a name); with hands, the brain itself only for tools that need no machine.
     */
    public List<String> machines(ToolInfo tool, List<WorkerInfo> workers) {
        boolean hands = router.settings().handsEnabled();
        return workers.stream()
                .filter(w -> !(w.local() && hands && tool.placement() == Placement.LOCAL))
                .filter(w -> w.tools().contains(tool.descriptor().name())).map(WorkerInfo::name).toList();
    }

    /**
     * A tool as an audience sees it.
     *
     * @param info     the tool, as the router knows it
     * @param machines the machines that have it, by name
     * @param schema   its input schema, with {@link #MACHINE_ARGUMENT} added where the audience is given that choice
     */
    public record Offered(ToolInfo info, List<String> machines, ObjectNode schema) {
    }

    /** Every tool the brain knows, as {@code audience} sees it, by name. */
    public Map<String, Offered> catalogue(Audience audience) {
        List<WorkerInfo> workers = router.workers();
        Map<String, Offered> offered = new LinkedHashMap<>();
        for (ToolInfo info : router.tools()) {
            List<String> machines = machines(info, workers);
            if (audience == Audience.MCP) {
                machines = machines.stream().distinct().toList();
            }
            ObjectNode schema = info.descriptor().inputSchema().deepCopy();
            if (audience == Audience.MCP && !schema.has("type")) {
                schema.put("type", "object");
            }
            boolean choice = audience == Audience.MCP || machines.size() > 1;
            if (choice && !ownsMachineArgument(info.descriptor())) {
                ObjectNode properties = schema.path("properties").isObject() ? (ObjectNode) schema.get("properties")
                        : schema.putObject("properties");
                ObjectNode machine = properties.putObject(MACHINE_ARGUMENT).put("type", "string")
                        .put("description", audience.machineDescription());
                if (!machines.isEmpty()) {
                    machines.forEach(machine.putArray("enum")::add);
                }
            }
            offered.put(info.descriptor().name(), new Offered(info, machines, schema));
        }
        return offered;
    }

    /** Whether {@code tool} has an argument of its own named {@link #MACHINE_ARGUMENT}: then it is the tool's. */
    public static boolean ownsMachineArgument(ToolDescriptor tool) {
        return tool.inputSchema().path("properties").has(MACHINE_ARGUMENT);
    }

    /** The name of the machine {@code given} names (by name or id), if the router has seen one. */
    public Optional<String> machineNamed(String given) {
        return router.workers().stream().filter(w -> w.id().equals(given) || w.name().equals(given))
                .map(WorkerInfo::name).findFirst();
    }

    /**
     * What the approval policy says of {@code origin}'s call of {@code tool} with {@code params} that names its
     * machine: it is judged for that machine.
     *
     * @param named the machine the call names
     */
    public Judgement judge(Origin origin, ToolDescriptor tool, ObjectNode params, String named) {
        Call call = new Call(tool.name(), hints(tool), params, Optional.of(named));
        if (!origin.standing().judged()) {
            // A person's own command, or what they set up to run: their yes was given when they asked.
            return new Judgement(new Verdict(Decision.ALLOW, "asked by the person"), call);
        }
        return new Judgement(approvals.decide(call), call);
    }

    /**
     * What the approval policy says of {@code origin}'s call of {@code tool} with {@code params} that names no
     * machine. It is judged for every machine that could take it, and the strictest answer holds, so that
     * "deny * on prod" cannot be dodged by naming none; an origin whose standing says so is judged as naming none as
     * well, even when only one machine could take it.
     *
     * @param candidates the machines that could take it
     */
    public Judgement judge(Origin origin, ToolDescriptor tool, ObjectNode params, List<String> candidates) {
        ToolHints hints = hints(tool);
        if (!origin.standing().judged()) {
            // A person's own command, or what they set up to run: their yes was given when they asked.
            return new Judgement(new Verdict(Decision.ALLOW, "asked by the person"), new Call(tool.name(), hints,
                    params, Optional.empty()));
        }
        Optional<String> machine = candidates.size() == 1 && !origin.standing().judgedAsNamingNone()
                ? Optional.of(candidates.getFirst()) : Optional.empty();
        Call judged = new Call(tool.name(), hints, params, machine);
        Verdict verdict = approvals.decide(judged);
        if (machine.isEmpty()) {
            for (String candidate : candidates) {
                Verdict there = approvals.decide(new Call(tool.name(), hints, params, Optional.of(candidate)));
                if (there.decision().compareTo(verdict.decision()) < 0) {
                    verdict = there;
                }
            }
        }
        return new Judgement(verdict, judged);
    }

    private static ToolHints hints(ToolDescriptor tool) {
        return new ToolHints(tool.readOnly(), tool.destructive(), tool.idempotent(), tool.openWorld());
    }

    /**
     * The policy's answer to a call, and the call as it was judged: the machine it names, or the one machine that
     * could take it (what "allow always" will allow again).
     */
    public record Judgement(Verdict verdict, Call call) {
    }

    /**
     * Submits {@code request} as {@code origin}'s: in its browser session, with its idempotency key where the request
     * has none, and with the origin kept on the task, where the conversations read it back ({@link Origins#of}).
     *
     * @throws dev.efferent.router.RouterException as {@link Router#submit} does
     */
    public Submission submit(Origin origin, TaskRequest request) {
        TaskRequest asked = request.inSession(origin.browserSession()).withOrigin(Origins.encode(origin));
        if (request.idempotencyKey().isEmpty() && origin.idempotencyKey().isPresent()) {
            asked = asked.withIdempotencyKey(origin.idempotencyKey().get());
        }
        return router.submit(asked);
    }
}
