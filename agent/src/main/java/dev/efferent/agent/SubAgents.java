package dev.efferent.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.assistant.AssistantHost;
import dev.efferent.assistant.Replies;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.core.tools.DurationText;
import dev.efferent.model.spi.ModelTool;
import dev.efferent.plugin.Ids;
import dev.efferent.router.WorkerInfo;
import dev.efferent.store.Codec;
import dev.efferent.store.Namespace;
import dev.efferent.store.Space;
import dev.efferent.store.Store;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sub-agents: children the model starts with {@code spawn_agent}, each a turn of its own in a context of its own
 * (the conversation {@code subagent:<id>}), one level deep and within limits. A child is kept in records from before
 * its id is returned until well after it ended, with its result, so a result is never lost: it is stored first, then
 * posted in the parent conversation, and {@code agent_status} reads it there.
 */
final class SubAgents {
    private static final System.Logger LOG = System.getLogger(SubAgents.class.getName());
    static final String SPAWN = "spawn_agent";
    static final String STATUS = "agent_status";
    /** The channel of children's conversations: none is registered, so nothing they say goes out by itself. */
    static final String CHANNEL = "subagent";
    /** More children than are kept at once; a list past it is cut rather than read without end. */
    private static final int MAX = 10_000;
    /** A child whose brain has given no sign of life for this long ended with it. */
    private static final Duration BRAIN_LEASE = Duration.ofMinutes(2);
    /** How long an ended child is kept for {@code agent_status} and {@code /agents}. */
    private static final Duration KEPT = Duration.ofDays(7);

    static final ModelTool SPAWN_TOOL = new ModelTool(SPAWN, "Start a sub-agent: an assistant with a context of its "
            + "own that does one task in parallel with you (e.g. one of several files, machines or pages to look "
            + "at) and posts its result in this conversation when done. Returns its id at once; do not wait for it. "
            + "It does not see this conversation: put everything it needs in 'task'.", """
            {"type":"object","properties":{
            "task":{"type":"string","description":"what to do and what to answer with"},
            "tools":{"type":"array","items":{"type":"string"},"description":"the only tools it may use; all by default"},
            "worker":{"type":"string","description":"the machine its calls run on"}},"required":["task"]}""");
    static final ModelTool STATUS_TOOL = new ModelTool(STATUS, "The status and result of the sub-agents started in "
            + "this conversation, or of one by its id.",
            "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}}}");

    /** A child's state. */
    enum State {
        RUNNING, DONE, FAILED, STOPPED;

        String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * A child.
     *
     * @param id       its id, e.g. {@code a-7k2x9q}
     * @param parent   the conversation that started it
     * @param task     what it was asked to do
     * @param tools    the only tools it may use; empty for all
     * @param worker   the machine its calls run on, unless a call names one
     * @param state    how far it got
     * @param result   its answer, or why it failed
     * @param started  when it started
     * @param ended    when it ended
     * @param brain    the brain its turn runs in (the last one that ran it)
     */
    record Child(String id, String parent, String task, List<String> tools, Optional<String> worker, State state,
                 String result, Instant started, Optional<Instant> ended, String brain) {
        Conversation conversation() {
            return new Conversation(CHANNEL, id);
        }

        String shortTask() {
            String line = task.strip().lines().findFirst().orElse("");
            return line.length() > 80 ? line.substring(0, 80) + "…" : line;
        }
    }

    /** The children by id, as JSON text: compare-and-set ends a child from the text that was read. */
    private final Space<String> records;
    /** Each brain's last sign of life, so that another brain can tell a child whose brain died from a live one. */
    private final Space<Instant> brains;
    private final ObjectMapper json;
    private final AgentSettings settings;
    private final Clock clock;
    /** What each running child has said so far: its answer, once its turn ends. */
    private final Map<String, Answer> said = new ConcurrentHashMap<>();
    private final Set<String> unreadable = ConcurrentHashMap.newKeySet();
    /** This brain, as children's records name it. */
    private final String brain = Ids.next();

    SubAgents(Store store, ObjectMapper json, AgentSettings settings, Clock clock) {
        this.records = store.claim(new Namespace<>("agent.children", Codec.text()), Agent.OWNER);
        this.brains = store.claim(new Namespace<>("agent.brains", Codec.of(Instant::toString, Instant::parse)),
                Agent.OWNER);
        this.json = json;
        this.settings = settings;
        this.clock = clock;
    }

    /**
     * {@code spawn_agent} with {@code arguments} in {@code parent}: the child to start, or what is wrong with the
     * call (for the model to correct), or the limit reached.
     *
     * @param tools   the tools the parent has, which the child may be given
     * @param workers the machines there are
     */
    Either spawn(String parent, String arguments, Set<String> tools, List<WorkerInfo> workers) {
        JsonNode args;
        try {
            args = json.readTree(arguments);
        } catch (JsonProcessingException e) {
            return refused("The arguments are not valid JSON (" + e.getOriginalMessage() + ").");
        }
        String task = args.path("task").asText("").strip();
        if (task.isEmpty()) {
            return refused("spawn_agent needs a task: what the sub-agent should do and answer with.");
        }
        List<String> given = new ArrayList<>();
        args.path("tools").forEach(t -> given.add(t.asText()));
        if (args.has("tools") && (!args.get("tools").isArray() || given.isEmpty())) {
            return refused("Not started: 'tools' must name at least one tool, or be left out for all of them.");
        }
        List<String> unknown = given.stream().filter(t -> !tools.contains(t)).toList();
        if (!unknown.isEmpty()) {
            return refused("Not started: 'tools' must list tools that exist; unknown: " + String.join(", ", unknown)
                    + ". The tools are: " + String.join(", ", tools) + ".");
        }
        Optional<String> worker = Optional.ofNullable(args.get("worker")).map(JsonNode::asText).filter(w -> !w.isBlank());
        if (worker.isPresent() && workers.stream().noneMatch(w -> w.name().equals(worker.get())
                || w.id().equals(worker.get()))) {
            return refused("Not started: there is no machine named '" + worker.get() + "'.");
        }
        return create(parent, task, given, worker.orElse(""));
    }

    private static Either refused(String why) {
        return new Either(Optional.empty(), why);
    }

    /**
     * Starts keeping a child of {@code parent}, or says why not: the limits of children per conversation and
     * overall. Checked and kept under one lock, so that two spawns at once cannot both take the last place.
     * {@code worker} is the machine its calls run on unless they name one; blank for none.
     */
    synchronized Either create(String parent, String task, List<String> tools, String worker) {
        List<Child> running = all().stream().filter(c -> c.state() == State.RUNNING).toList();
        long here = running.stream().filter(c -> c.parent().equals(parent)).count();
        if (here >= settings.maxChildren()) {
            return new Either(Optional.empty(), "Refused: this conversation already has " + here + " sub-agent"
                    + (here == 1 ? "" : "s") + " running, the most it may have (agent.max-children); wait for one to finish (agent_status) or "
                    + "do the task yourself.");
        }
        if (running.size() >= settings.maxConcurrentChildren()) {
            return new Either(Optional.empty(), "Refused: " + running.size() + (running.size() == 1
                    ? " sub-agent is" : " sub-agents are") + " running across all conversations, the most there may be (agent.max-concurrent-children); wait for one to finish "
                    + "or do the task yourself.");
        }
        String id;
        do {
            id = "a-" + Ids.next().substring(0, 6);
        } while (records.get(id).isPresent());
        Child child = new Child(id, parent, task, List.copyOf(tools), Optional.of(worker).filter(w -> !w.isBlank()),
                State.RUNNING, "", clock.instant(), Optional.empty(), brain);
        records.put(id, write(child));
        said.put(id, new Answer());
        return new Either(Optional.of(child), "");
    }

    /** A child made, or why not. */
    record Either(Optional<Child> child, String refusal) {
    }

    Optional<Child> get(String id) {
        return records.get(id).flatMap(data -> read(id, data));
    }

    /** Every child kept, oldest first; those ended long ago are forgotten on the way. */
    List<Child> all() {
        List<Child> all = new ArrayList<>();
        Instant forget = clock.instant().minus(KEPT);
        records.entries(MAX).forEach((key, data) -> read(key, data).ifPresent(c -> {
            if (c.ended().map(e -> e.isBefore(forget)).orElse(false)) {
                records.remove(key);
            } else {
                all.add(c);
            }
        }));
        all.sort(Comparator.comparing(Child::started));
        return all;
    }

    /** The child whose conversation's key is {@code key}, if it is one. */
    Optional<Child> childOf(String key) {
        return key.startsWith(CHANNEL + ":") ? get(key.substring(CHANNEL.length() + 1)) : Optional.empty();
    }

    List<Child> of(String parent) {
        return all().stream().filter(c -> c.parent().equals(parent)).toList();
    }

    /**
     * Ends child {@code id} as {@code state} with {@code result}, if it is still running: stored first, then
     * posted in its parent conversation. Whether this call ended it (a child stopped by {@code /stop} is not
     * ended again by its turn, which notices afterwards).
     */
    boolean end(String id, State state, String result, AssistantHost host) {
        said.remove(id);
        while (true) {
            Optional<String> data = records.get(id);
            Optional<Child> child = data.flatMap(d -> read(id, d));
            if (child.isEmpty() || child.get().state() != State.RUNNING) {
                return false;
            }
            Child c = child.get();
            Child ended = new Child(c.id(), c.parent(), c.task(), c.tools(), c.worker(), state, result,
                    c.started(), Optional.of(clock.instant()), c.brain());
            // Replaced only from what was read: of a turn ending and a /stop at once, one ends it.
            if (records.compareAndSet(id, data.get(), write(ended))) {
                LOG.log(Level.INFO, "Sub-agent {0} of {1} ended: {2}", id, c.parent(), state.word());
                Conversation.fromKey(c.parent()).ifPresent(p -> host.replies(p).send(new OutgoingMessage.Text(
                        "↳ Sub-agent " + id + " " + (state == State.DONE ? "finished" : state.word()) + " ("
                                + c.shortTask() + "):\n" + cut(result))));
                return true;
            }
        }
    }

    /** What a child says, step by step: the last step that said something is its answer. */
    private static final class Answer {
        private final StringBuilder step = new StringBuilder();
        private String last = "";

        synchronized void stream(String text) {
            step.append(text);
        }

        synchronized void endStep() {
            said(step.toString());
            step.setLength(0);
        }

        synchronized void said(String text) {
            if (!text.isBlank()) {
                last = text.strip();
            }
        }

        synchronized String last() {
            return last;
        }
    }

    /** Child {@code id}'s turn runs in this brain from now on (it started here, or resumed here). */
    void runsHere(String id) {
        while (true) {
            Optional<String> data = records.get(id);
            Optional<Child> child = data.flatMap(d -> read(id, d));
            if (child.isEmpty() || child.get().brain().equals(brain)) {
                return;
            }
            Child c = child.get();
            Child here = new Child(c.id(), c.parent(), c.task(), c.tools(), c.worker(), c.state(), c.result(),
                    c.started(), c.ended(), brain);
            if (records.compareAndSet(id, data.get(), write(here))) {
                return;
            }
        }
    }

    /** Says that this brain is alive; called more often than {@link #BRAIN_LEASE}. */
    void alive() {
        brains.put(brain, clock.instant());
    }

    /**
     * Ends, as failed, the running children whose brain has stopped (no sign of life for {@link #BRAIN_LEASE}) and
     * which wait for no task ({@code parked}: their conversations' keys): nothing will run their turn again.
     */
    void endOrphans(Set<String> parked, AssistantHost host) {
        Map<String, Instant> lastSeen = brains.entries(MAX);
        Instant dead = clock.instant().minus(BRAIN_LEASE);
        for (Child c : all()) {
            if (c.state() != State.RUNNING || c.brain().equals(brain) || parked.contains(c.conversation().key())) {
                continue;
            }
            Optional<Instant> seen = Optional.ofNullable(lastSeen.get(c.brain()));
            if (seen.map(dead::isAfter).orElse(true)) {
                end(c.id(), State.FAILED, "Its brain stopped while it ran; start it again.", host);
            }
        }
        // Brains silent for a day are gone for good.
        Instant gone = clock.instant().minus(Duration.ofDays(1));
        lastSeen.forEach((key, at) -> {
            if (at.isBefore(gone)) {
                brains.remove(key);
            }
        });
    }

    /** This brain stops: its sign of life goes. */
    void stopped() {
        brains.remove(brain);
    }

    /** The way back from child {@code c}: what it says is its answer; a question for the person goes to the parent. */
    Replies replies(Child c, AssistantHost host) {
        Answer answer = said.computeIfAbsent(c.id(), k -> new Answer());
        return new Replies() {
            @Override
            public void send(OutgoingMessage message) {
                switch (message) {
                    case OutgoingMessage.Prompt p -> parent(c).ifPresent(to -> host.replies(to).send(p));
                    case OutgoingMessage.PromptClosed p -> parent(c).ifPresent(to -> host.replies(to).send(p));
                    case OutgoingMessage.Text t -> answer.said(t.text());
                    default -> {
                        // Results and images of its calls are its own business; it reports in its answer.
                    }
                }
            }

            @Override
            public void stream(String appended) {
                answer.stream(appended);
            }

            @Override
            public void finish() {
                answer.endStep();
            }
        };
    }

    /** What child {@code id} has answered so far: the last step of its turn that said something. */
    String answer(String id) {
        Answer a = said.get(id);
        return a == null ? "" : a.last();
    }

    /** {@code agent_status}: the children of {@code parent}, or one of them. */
    String status(String parent, String arguments) {
        String id;
        try {
            id = json.readTree(arguments).path("id").asText("").strip();
        } catch (JsonProcessingException e) {
            id = "";
        }
        List<Child> children = of(parent);
        if (!id.isEmpty()) {
            String wanted = id;
            children = children.stream().filter(c -> c.id().equals(wanted)).toList();
            if (children.isEmpty()) {
                return "No sub-agent " + id + " was started in this conversation.";
            }
        }
        if (children.isEmpty()) {
            return "No sub-agent was started in this conversation.";
        }
        StringBuilder out = new StringBuilder();
        for (Child c : children) {
            out.append(c.id()).append(" (").append(c.shortTask()).append("): ").append(c.state().word());
            if (c.state() == State.RUNNING) {
                out.append(" for ").append(DurationText.words(Duration.between(c.started(), clock.instant())
                        .withNanos(0)));
            } else {
                out.append("\n").append(cut(c.result()));
            }
            out.append("\n");
        }
        return out.toString().strip();
    }

    /** {@code /agents}: the children of {@code parent}, one line each. */
    String list(String parent) {
        List<Child> children = of(parent);
        if (children.isEmpty()) {
            return "No sub-agents here. The assistant starts them (spawn_agent) for work it can do in parallel.";
        }
        StringBuilder out = new StringBuilder("Sub-agents:");
        for (Child c : children) {
            out.append("\n↳ ").append(c.id()).append("  ").append(c.state().word()).append("  ").append(c.shortTask());
        }
        return out.toString();
    }

    private static Optional<Conversation> parent(Child c) {
        return Conversation.fromKey(c.parent());
    }

    private String cut(String text) {
        int max = settings.maxToolResultChars();
        return text.length() <= max ? text : text.substring(0, max) + "\n[… cut: " + (text.length() - max)
                + " more characters]";
    }

    private String write(Child c) {
        ObjectNode o = json.createObjectNode().put("id", c.id()).put("parent", c.parent()).put("task", c.task())
                .put("state", c.state().name()).put("result", c.result()).put("started", c.started().toString());
        c.tools().forEach(o.putArray("tools")::add);
        c.worker().ifPresent(w -> o.put("worker", w));
        c.ended().ifPresent(e -> o.put("ended", e.toString()));
        o.put("brain", c.brain());
        return o.toString();
    }

    private Optional<Child> read(String key, String data) {
        try {
            JsonNode o = json.readTree(data);
            List<String> tools = new ArrayList<>();
            o.path("tools").forEach(t -> tools.add(t.asText()));
            return Optional.of(new Child(o.path("id").asText(), o.path("parent").asText(), o.path("task").asText(),
                    tools, Optional.ofNullable(o.get("worker")).map(JsonNode::asText),
                    State.valueOf(o.path("state").asText()), o.path("result").asText(),
                    Instant.parse(o.path("started").asText()),
                    Optional.ofNullable(o.get("ended")).map(e -> Instant.parse(e.asText())),
                    o.path("brain").asText("")));
        } catch (JsonProcessingException | RuntimeException e) {
            // Left as it is (a newer brain over the same database may know its form), and said once.
            if (unreadable.add(key)) {
                LOG.log(Level.WARNING, "Sub-agent record " + key + " cannot be read by this brain and is left alone: "
                        + e.getMessage());
            }
            return Optional.empty();
        }
    }
}
