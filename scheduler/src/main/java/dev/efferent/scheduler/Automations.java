package dev.efferent.scheduler;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.assistant.AssistantHost;
import dev.efferent.assistant.Calls;
import dev.efferent.assistant.Extension;
import dev.efferent.calls.Origin;
import dev.efferent.calls.Origins;
import dev.efferent.calls.Outcome;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.model.spi.ModelTool;
import dev.efferent.model.spi.ToolCall;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskStatus;
import dev.efferent.router.Router;
import dev.efferent.store.Store;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Automations: tool calls recorded in a conversation ({@code /record start} … {@code /record stop}, or
 * {@code save_automation} from the assistant over its last calls), saved with variables in place of the values
 * marked, and replayed as a tool, {@code automation_<name>}, that the assistant or {@code /run} calls. The chat
 * face: what is saved is kept in an {@link AutomationStore}, the runs in {@link AutomationRuns}.
 */
public final class Automations implements Extension, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Automations.class.getName());
    static final String SAVE = "save_automation";
    /** Recorded calls are looked for among this many of the newest finished tasks. */
    private static final int LOOK_BACK = 1000;
    private static final ModelTool SAVE_TOOL = new ModelTool(SAVE, "Save the last tool calls made in this "
            + "conversation as an automation, a tool named automation_<name> that replays them in order. Values "
            + "that should change from run to run become variables: map each variable's name to the literal "
            + "value it replaces.", """
            {"type":"object","properties":{
            "name":{"type":"string","description":"lower-case letters, digits and _"},
            "last":{"type":"integer","minimum":1,"description":"how many of the last tool calls to keep"},
            "variables":{"type":"object","additionalProperties":{"type":"string"},"description":"variable name to the literal value it replaces, e.g. {\\"email\\": \\"ann@example.com\\"}"},
            "description":{"type":"string"},
            "url":{"type":"string","description":"the pages it is for, e.g. https://shop.example/*"},
            "approval":{"type":"array","items":{"type":"integer"},"description":"step numbers (from 1) that wait for the user's yes each run"}},
            "required":["name","last"]}""");
    static final List<String> HELP = List.of(
            "/record start <name> — keep the tool calls made here from now on, as an automation",
            "/record stop [variable=value …] — save them; each value marked becomes {{variable}}",
            "/automations — the automations saved, each a tool: /run automation_<name> {\"variable\": \"…\"}",
            "/automation show|delete <name>, /automation ask|unask <name> <step>, /automation stop <run> — its "
                    + "steps; remove it; make a step wait for your yes, or not; stop a run");

    private final Router router;
    private final AutomationStore saved;
    private final Clock clock;
    private final ObjectMapper json = new ObjectMapper();
    private final AutomationRuns runs;

    /**
     * Automations.
     *
     * @param router   whose finished tasks are recorded
     * @param store    where automations, recordings and runs are kept
     * @param clock    what time it is
     */
    public Automations(Router router, Store store, Clock clock) {
        this.router = router;
        this.saved = new AutomationStore(store, json);
        this.clock = clock;
        this.runs = new AutomationRuns(router, store, json);
    }

    @Override
    public void start(AssistantHost host, Calls calls) {
        runs.start(host, calls);
    }

    /** The automations saved, by name. */
    public List<Automation> list() {
        return saved.list();
    }

    /** The automation {@code name}, if saved. */
    public Optional<Automation> get(String name) {
        return saved.get(name);
    }

    @Override
    public List<ModelTool> tools(Conversation conversation) {
        List<ModelTool> tools = new ArrayList<>(List.of(SAVE_TOOL));
        for (Automation a : list()) {
            tools.add(new ModelTool(a.toolName(), (a.description().isBlank() ? "Replays " + a.steps().size()
                    + " recorded tool calls" : a.description()) + a.url().map(u -> " (for pages at " + u + ")").orElse("")
                    + ". Runs in the background; its outcome is posted in the conversation.", a.inputSchema(json)));
        }
        return tools;
    }

    @Override
    public String call(Conversation conversation, ToolCall call) {
        JsonNode args;
        try {
            args = json.readTree(call.arguments());
        } catch (JsonProcessingException e) {
            return "The arguments are not valid JSON (" + e.getOriginalMessage() + ").";
        }
        if (args == null || !args.isObject()) {
            return "The arguments must be a JSON object.";
        }
        try {
            if (call.name().equals(SAVE)) {
                return save(conversation, args);
            }
            Automation a = list().stream().filter(x -> x.toolName().equals(call.name())).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("there is no automation behind " + call.name()
                            + "; /automations lists them"));
            return replay(conversation, a, args);
        } catch (IllegalArgumentException e) {
            return "Not done: " + e.getMessage() + ".";
        }
    }

    @Override
    public Optional<List<OutgoingMessage>> command(IncomingMessage message) {
        String text = message.text().strip();
        String[] words = text.split("\\s+");
        String command = words[0].toLowerCase(Locale.ROOT);
        Conversation c = message.conversation();
        try {
            return switch (command) {
                case "/record" -> say(record(c, words));
                case "/automations" -> say(describeAll());
                case "/automation" -> say(automation(words));
                case "/run" -> {
                    // /run automation_<name> {…}: the automations are tools of the brain itself, not of a machine.
                    String[] parts = text.split("\\s+", 3);
                    if (parts.length < 2 || !parts[1].startsWith("automation_")) {
                        yield Optional.empty();
                    }
                    yield say(call(c, new ToolCall("run", parts[1], parts.length > 2 ? parts[2] : "{}")));
                }
                default -> Optional.empty();
            };
        } catch (IllegalArgumentException e) {
            return say("Not done: " + e.getMessage() + ".");
        }
    }

    @Override
    public List<String> help() {
        return HELP;
    }

    @Override
    public int stop(Conversation conversation) {
        return runs.stopAll(conversation);
    }

    private String record(Conversation c, String[] words) {
        String key = c.key();
        String what = words.length > 1 ? words[1].toLowerCase(Locale.ROOT) : "";
        switch (what) {
            case "start" -> {
                if (words.length != 3) {
                    throw new IllegalArgumentException("name it: /record start <name>");
                }
                String name = name(words[2]);
                if (get(name).isPresent()) {
                    throw new IllegalArgumentException("an automation named " + name + " exists; choose another name or "
                            + "/automation delete " + name + " first");
                }
                saved.startRecording(key, json.createObjectNode().put("name", name).put("since",
                        clock.instant().toString()));
                return "Recording " + name + ": the tool calls made here from now on, yours and the assistant's, are "
                        + "kept. /record stop [variable=value …] saves them; each value marked becomes a variable.";
            }
            case "stop" -> {
                Optional<JsonNode> recording = saved.recording(key);
                if (recording.isEmpty()) {
                    throw new IllegalArgumentException("nothing is being recorded here; /record start <name> starts");
                }
                Map<String, String> literals = new LinkedHashMap<>();
                for (int i = 2; i < words.length; i++) {
                    int eq = words[i].indexOf('=');
                    if (eq <= 0 || eq == words[i].length() - 1 || !Automation.isVariable(words[i].substring(0, eq))) {
                        throw new IllegalArgumentException("mark a value as variable=value (a name of lower-case "
                                + "letters, digits and _), got '" + words[i] + "'");
                    }
                    literals.put(words[i].substring(0, eq), words[i].substring(eq + 1));
                }
                JsonNode r = recording.get();
                Instant since = Instant.parse(r.path("since").asText());
                List<Task> calls = calls(c, since);
                if (calls.isEmpty()) {
                    return "Nothing recorded yet: no tool call has finished here since /record start. Make the calls, "
                            + "then /record stop.";
                }
                Automation a = save(r.path("name").asText(), "", "", calls, literals, List.of());
                saved.stopRecording(key);
                return "Saved " + a.name() + " as the tool " + a.toolName() + describeVariables(a) + ":\n"
                        + a.describeSteps();
            }
            default -> throw new IllegalArgumentException("/record start <name> or /record stop [variable=value …]");
        }
    }

    private String automation(String[] words) {
        if (words.length < 3) {
            throw new IllegalArgumentException("/automation show <name>, /automation delete <name>, "
                    + "/automation ask|unask <name> <step>, or /automation stop <run>");
        }
        if (words[1].equalsIgnoreCase("stop")) {
            return runs.stop(words[2]) ? "Stopped run " + words[2] + "." : "There is no run " + words[2]
                    + " going on.";
        }
        Automation a = get(words[2]).orElseThrow(() -> new IllegalArgumentException("there is no automation named '"
                + words[2] + "'; /automations lists them"));
        return switch (words[1].toLowerCase(Locale.ROOT)) {
            case "show" -> a.name() + " (the tool " + a.toolName() + describeVariables(a) + ")"
                    + a.url().map(u -> ", for " + u).orElse("") + ":\n" + a.describeSteps();
            case "delete" -> {
                saved.delete(a.name());
                yield "Deleted " + a.name() + ".";
            }
            case "ask", "unask" -> {
                boolean ask = words[1].equalsIgnoreCase("ask");
                int step = words.length == 4 && words[3].matches("\\d{1,3}") ? Integer.parseInt(words[3]) : 0;
                if (step < 1 || step > a.steps().size()) {
                    throw new IllegalArgumentException("give a step from 1 to " + a.steps().size()
                            + ": /automation " + words[1].toLowerCase(Locale.ROOT) + " " + a.name() + " <step>");
                }
                List<Automation.Step> steps = new ArrayList<>(a.steps());
                Automation.Step s = steps.get(step - 1);
                steps.set(step - 1, new Automation.Step(s.tool(), s.params(), ask));
                Automation changed = new Automation(a.name(), a.description(), a.url(), steps, a.created());
                saved.save(changed);
                yield "Step " + step + " of " + a.name() + (ask ? " now waits for your yes each time (approval: "
                        + "required)." : " runs as the approval policy says again.");
            }
            default -> throw new IllegalArgumentException("/automation show, delete or ask");
        };
    }

    /** {@code save_automation}: the last calls of the conversation, as the model asked. */
    private String save(Conversation c, JsonNode args) {
        int last = args.path("last").asInt(0);
        if (!args.path("last").isIntegralNumber() || last < 1) {
            throw new IllegalArgumentException("'last' must be how many of the last tool calls to keep, at least 1");
        }
        List<Task> all = calls(c, Instant.EPOCH);
        if (all.size() < last) {
            throw new IllegalArgumentException("this conversation has " + all.size() + " finished tool call"
                    + (all.size() == 1 ? "" : "s") + ", not " + last);
        }
        Map<String, String> literals = new LinkedHashMap<>();
        JsonNode vars = args.path("variables");
        if (!vars.isMissingNode() && !vars.isObject()) {
            throw new IllegalArgumentException("'variables' maps each variable's name to the value it replaces");
        }
        for (var it = vars.fields(); it.hasNext(); ) {
            var e = it.next();
            if (!Automation.isVariable(e.getKey()) || !e.getValue().isTextual() || e.getValue().asText().isEmpty()) {
                throw new IllegalArgumentException("variable '" + e.getKey() + "' needs a name of lower-case letters, "
                        + "digits and _, and a text value");
            }
            literals.put(e.getKey(), e.getValue().asText());
        }
        List<Integer> approval = new ArrayList<>();
        args.path("approval").forEach(n -> approval.add(n.asInt()));
        String name = name(args.path("name").asText(""));
        // Shown to the model in every conversation: one plain line, short.
        String description = args.path("description").asText("").replaceAll("\\p{Cntrl}", " ").strip();
        description = description.length() > 200 ? description.substring(0, 200) + "…" : description;
        Automation a = save(name, description,
                Optional.ofNullable(args.get("url")).map(JsonNode::asText).filter(u -> !u.isBlank()).orElse(""),
                all.subList(all.size() - last, all.size()), literals, approval);
        return "Saved " + a.name() + " as the tool " + a.toolName() + describeVariables(a) + ":\n" + a.describeSteps();
    }

    /** Saves {@code calls} as the automation {@code name}; {@code url} is the page it was made on, blank if none. */
    private Automation save(String name, String description, String url, List<Task> calls,
                            Map<String, String> literals, List<Integer> approval) {
        if (get(name).isPresent()) {
            // Never over one saved before, whose steps may have been marked to ask.
            throw new IllegalArgumentException("an automation named " + name + " exists; choose another name or "
                    + "/automation delete " + name + " first");
        }
        List<Automation.Step> steps = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            Task t = calls.get(i);
            JsonNode params;
            try {
                params = json.readTree(t.params());
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("task " + t.id() + " has params that are not JSON", e);
            }
            steps.add(new Automation.Step(t.tool(), Automation.marked((ObjectNode)
                    params, literals), approval.contains(i + 1)));
        }
        Automation a = new Automation(name, description, Optional.of(url).filter(u -> !u.isBlank()), steps,
                clock.instant());
        List<String> unused = literals.keySet().stream().filter(v -> !a.variables().contains(v)).toList();
        if (!unused.isEmpty()) {
            throw new IllegalArgumentException("the value of " + String.join(", ", unused) + " appears in none of the "
                    + steps.size() + " calls");
        }
        saved.save(a);
        LOG.log(Level.INFO, "Automation {0} saved: {1} steps, variables {2}", name, steps.size(), a.variables());
        return a;
    }

    /** Replays {@code a} with the call's arguments. */
    private String replay(Conversation c, Automation a, JsonNode args) {
        Map<String, String> values = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        for (String v : a.variables()) {
            JsonNode value = args.get(v);
            if (value == null || !value.isTextual()) {
                missing.add(v);
            } else {
                values.put(v, value.asText());
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException(a.toolName() + " needs " + String.join(", ", missing)
                    + " (text), e.g. /run " + a.toolName() + " " + example(a));
        }
        Optional<String> worker = Optional.ofNullable(args.get("worker")).map(JsonNode::asText).filter(w -> !w.isBlank());
        return runs.run(c, a, values, worker.orElse(""));
    }

    /** The tool calls that finished well in {@code c} since {@code since}, oldest first; not replays or fires. */
    private List<Task> calls(Conversation c, Instant since) {
        return router.newestTasks(EnumSet.of(TaskStatus.COMPLETED), LOOK_BACK).stream()
                .filter(t -> Origins.of(t).filter(o -> o.standing().recordable())
                        .flatMap(Origin::reportsTo).filter(c::equals).isPresent())
                .filter(t -> !t.createdAt().isBefore(since))
                .filter(t -> Outcome.of(t).map(Outcome::ok).orElse(true))
                .sorted(Comparator.comparing(Task::createdAt))
                .toList();
    }

    private static String name(String given) {
        String name = given.strip().toLowerCase(Locale.ROOT);
        if (!Automation.NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("an automation's name is up to 40 lower-case letters, digits and _, "
                    + "got '" + given + "'");
        }
        return name;
    }

    private String describeAll() {
        List<Automation> all = list();
        if (all.isEmpty()) {
            return "No automations yet. /record start <name>, make the calls, /record stop saves them.";
        }
        StringBuilder out = new StringBuilder("Automations:");
        for (Automation a : all) {
            out.append("\n").append(a.toolName()).append(" ").append(example(a)).append("  — ")
                    .append(a.steps().size()).append(" steps").append(a.description().isBlank() ? ""
                            : ": " + a.description());
        }
        return out.toString();
    }

    private String example(Automation a) {
        var o = json.createObjectNode();
        a.variables().forEach(v -> o.put(v, "…"));
        return o.toString();
    }

    private static String describeVariables(Automation a) {
        return a.variables().isEmpty() ? "" : ", variables " + String.join(", ", a.variables());
    }

    private static Optional<List<OutgoingMessage>> say(String text) {
        return Optional.of(List.of(new OutgoingMessage.Text(text)));
    }

    @Override
    public void close() {
        runs.close();
    }
}
