package dev.efferent.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.approvals.Approvals;
import dev.efferent.assistant.Assistant;
import dev.efferent.assistant.AssistantHost;
import dev.efferent.assistant.Calls;
import dev.efferent.assistant.Extension;
import dev.efferent.assistant.Replies;
import dev.efferent.calls.Gateway;
import dev.efferent.calls.Origin;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.conversations.Wording;
import dev.efferent.core.tools.DurationText;
import dev.efferent.model.spi.Model;
import dev.efferent.model.spi.ModelException;
import dev.efferent.model.spi.ModelListener;
import dev.efferent.model.spi.ModelMessage;
import dev.efferent.model.spi.ModelReply;
import dev.efferent.model.spi.ModelRequest;
import dev.efferent.model.spi.ModelTool;
import dev.efferent.model.spi.ToolCall;
import dev.efferent.model.spi.Usage;
import dev.efferent.plugin.Ids;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskStatus;
import dev.efferent.router.Awaited;
import dev.efferent.router.Router;
import dev.efferent.router.RouterException;
import dev.efferent.router.Submission;
import dev.efferent.router.WorkerInfo;
import dev.efferent.store.Store;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * The assistant's mind: answers free text with a language model that may call the brain's tools. One turn at a time
 * per conversation (the conversations module's turn lane); each tool call becomes a task through the router, exactly
 * like {@code /run}; a call queued for an offline machine parks the turn, which resumes when its task finishes,
 * after a brain restart too where the store is durable. Owns {@code /stop}, {@code /new}, {@code /model} and
 * {@code /usage}.
 */
public final class Agent implements Assistant, AutoCloseable {
    /** The owner of the agent's namespaces in the store. */
    static final String OWNER = "efferent.agent";
    private static final System.Logger LOG = System.getLogger(Agent.class.getName());

    private final Router router;
    private final Optional<Model> model;
    private final AgentSettings settings;
    private final Clock clock;
    private final Contexts contexts;
    private final ParkedTurns parked;
    private final Toolbox toolbox;
    private final Approvals approvals;
    private final ObjectMapper json;
    private final AskHuman askHuman;
    private final Questions questions;
    private final SystemPrompt prompt;
    private final Map<String, Usage> usage = new ConcurrentHashMap<>();
    private final AtomicReference<Usage> total = new AtomicReference<>(Usage.NONE);
    private final Map<String, Running> running = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("efferent-agent-timer").daemon().factory());
    private final List<Extension> extensions;
    private final SubAgents children;
    private volatile AssistantHost host;

    /**
     * An agent without a language model: free text is answered with how to configure one; commands work.
     *
     * @param router    runs the tool calls
     * @param settings  limits and the system prompt
     * @param approvals which calls run, wait for a yes or are refused
     * @param store     where conversations' contexts, parked turns and sub-agents are kept
     * @param clock     for parking times
     */
    public Agent(Router router, AgentSettings settings, Approvals approvals, Store store, Clock clock) {
        this(new Gateway(router, approvals), new Unconfigured(), settings, store, clock, List.of());
    }

    /**
     * An agent.
     *
     * @param router   runs the tool calls
     * @param model    the language model
     * @param settings  limits and the system prompt
     * @param approvals which calls run, wait for a yes or are refused
     * @param store     where conversations' contexts, parked turns and sub-agents are kept
     * @param clock     for parking times
     */
    public Agent(Router router, Model model, AgentSettings settings, Approvals approvals, Store store, Clock clock) {
        this(router, model, settings, approvals, store, clock, List.of());
    }

    /**
     * An agent with what the brain adds to every conversation.
     *
     * @param router     runs the tool calls
     * @param model      the language model
     * @param settings   limits and the system prompt
     * @param approvals  which calls run, wait for a yes or are refused
     * @param store      where conversations' contexts, parked turns and sub-agents are kept
     * @param clock      for parking times
     * @param extensions commands and tools of the brain itself (schedules, automations), asked in this order
     */
    public Agent(Router router, Model model, AgentSettings settings, Approvals approvals, Store store,
                 Clock clock, List<Extension> extensions) {
        this(new Gateway(router, approvals), model, settings, store, clock, extensions);
    }

    /**
     * An agent whose calls go through the brain's one front door, without a language model: free text is answered
     * with how to configure one; commands work.
     *
     * @param gateway    runs the tool calls, judged by its approvals
     * @param settings   limits and the system prompt
     * @param store      where conversations' contexts, parked turns and sub-agents are kept
     * @param clock      for parking times
     * @param extensions commands and tools of the brain itself (schedules, automations), asked in this order
     */
    public Agent(Gateway gateway, AgentSettings settings, Store store, Clock clock, List<Extension> extensions) {
        this(gateway, new Unconfigured(), settings, store, clock, extensions);
    }

    /**
     * An agent whose calls go through the brain's one front door.
     *
     * @param gateway    runs the tool calls, judged by its approvals
     * @param model      the language model
     * @param settings   limits and the system prompt
     * @param store      where conversations' contexts, parked turns and sub-agents are kept
     * @param clock      for parking times
     * @param extensions commands and tools of the brain itself (schedules, automations), asked in this order
     */
    public Agent(Gateway gateway, Model model, AgentSettings settings, Store store, Clock clock,
                 List<Extension> extensions) {
        Router router = gateway.router();
        Approvals approvals = gateway.approvals();
        this.extensions = List.copyOf(extensions);
        this.json = new ObjectMapper();
        Messages messages = new Messages(json);
        this.router = router;
        this.model = model instanceof Unconfigured ? Optional.empty() : Optional.of(model);
        this.settings = settings;
        this.clock = clock;
        this.contexts = new Contexts(store, messages, json);
        this.parked = new ParkedTurns(store, messages, json);
        this.approvals = approvals;
        this.toolbox = new Toolbox(gateway, json, settings.maxToolResultChars());
        this.prompt = new SystemPrompt(router, settings.systemPrompt().orElse(SystemPrompt.BUILT_IN));
        this.askHuman = new AskHuman(settings.humanTimeout(), json);
        this.children = new SubAgents(store, json, settings, clock);
        this.questions = new Questions(router, approvals, json, children);
        // However a question was answered, wherever it was shown its buttons go.
        // A sub-agent's question was asked in its parent's conversation, so its buttons are there.
        approvals.onAnswered((task, said) -> task.session().flatMap(Conversation::fromKey)
                .map(c -> childOf(c).flatMap(child -> Conversation.fromKey(child.parent())).orElse(c)).ifPresent(c -> {
                    AssistantHost h = host;
                    if (h != null) {
                        h.replies(c).send(new OutgoingMessage.PromptClosed(task.id(), said));
                    }
                }));
    }

    @Override
    public void start(AssistantHost host) {
        this.host = host;
        Calls calls = (conversation, run, step, tool, params, worker, askFirst) -> worker.isEmpty()
                ? callFor(conversation, run, step, tool, params, askFirst)
                : callFor(conversation, run, step, tool, params, worker, askFirst);
        extensions.forEach(e -> e.start(host, calls));
        List<ParkedTurns.Parked> waiting = parked.all();
        if (!waiting.isEmpty()) {
            LOG.log(Level.INFO, "{0} parked turn(s) wait for their tasks", waiting.size());
        }
        waiting.forEach(this::watch);
        children.alive();
        long every = Math.max(1_000, Math.min(60_000, settings.parkTimeout().toMillis() / 4));
        timer.scheduleWithFixedDelay(this::expireParked, every, every, TimeUnit.MILLISECONDS);
    }

    @Override
    public void onMessage(IncomingMessage message, Replies replies) {
        if (model.isEmpty()) {
            COMMANDS_ONLY.onMessage(message, replies);
            return;
        }
        List<ModelMessage> messages = new ArrayList<>(List.of(new ModelMessage.User(message.text())));
        run(new Turn(Ids.next(), message.conversation(), replies, messages, 0, null));
    }

    @Override
    public boolean interject(IncomingMessage message) {
        return askHuman.reply(message.conversation().key(), message.text());
    }

    @Override
    public List<String> help() {
        List<String> lines = new ArrayList<>(List.of("/approve <id> [once|always] — let a call that waits for your yes run",
                "/deny <id> [reason] — refuse it",
                "/approvals — the calls waiting for your yes",
                "/policy — which calls run, ask or are refused",
                "/stop — end the assistant's running turn and cancel its tasks",
                "/done [note] — tell the assistant that what it asked you to do is done",
                "/new — start afresh: earlier messages are no longer sent to the model",
                "/model — the language model in use",
                "/usage — tokens used by this conversation and by all",
                "/agents — the sub-agents the assistant started here, and how far each got"));
        extensions.forEach(e -> lines.addAll(e.help()));
        return List.copyOf(lines);
    }

    @Override
    public Optional<List<OutgoingMessage>> command(IncomingMessage message) {
        String text = message.text().strip();
        String command = text.split("\\s+", 2)[0].toLowerCase(Locale.ROOT);
        String key = message.conversation().key();
        String[] args = text.split("\\s+", 3);
        return switch (command) {
            case "/approve" -> Optional.of(say(questions.answer(args, message, true)));
            case "/deny" -> Optional.of(say(questions.answer(args, message, false)));
            case "/approvals" -> Optional.of(say(questions.pending(key)));
            case "/policy" -> Optional.of(say(approvals.policy().describe()));
            case "/agents" -> Optional.of(say(children.list(key)));
            case "/stop" -> Optional.of(say(stop(message.conversation())));
            case "/done" -> Optional.of(say(askHuman.done(key, args.length > 1 ? text.substring(text.indexOf(' ') + 1)
                    .strip() : "")));
            case "/new" -> {
                contexts.reset(key);
                yield Optional.of(say("Starting afresh: earlier messages are no longer sent to the model."));
            }
            case "/model" -> Optional.of(say(model.map(m -> "Model: " + m.describe())
                    .orElse("No language model is configured; set model.name (EFFERENT_MODEL_NAME) and, for a "
                            + "server other than OpenAI, model.base-url (EFFERENT_MODEL_BASE__URL).")));
            case "/usage" -> {
                Usage here = usage.getOrDefault(key, Usage.NONE);
                Usage all = total.get();
                yield Optional.of(say("This conversation: " + here.total() + " tokens (" + here.input() + " in, "
                        + here.output() + " out). All conversations since the brain started: " + all.total()
                        + " tokens (" + all.input() + " in, " + all.output() + " out)."));
            }
            default -> extensions.stream().map(e -> e.command(message)).flatMap(Optional::stream).findFirst();
        };
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            children.stopped();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not say that this brain stops; its sub-agents end in two minutes: "
                    + e.getMessage());
        }
    }

    /**
     * One turn: its id, conversation, way back, messages so far and model calls made; for a sub-agent's turn, the
     * child it is (null for a person's).
     */
    private static final class Turn {
        final String id;
        final Conversation conversation;
        final Replies replies;
        final List<ModelMessage> messages;
        final SubAgents.Child child;
        int steps;
        /** It ended with an answer (or at max-steps), not by failing or being stopped. */
        boolean answered;

        Turn(String id, Conversation conversation, Replies replies, List<ModelMessage> messages, int steps,
             SubAgents.Child child) {
            this.id = id;
            this.conversation = conversation;
            this.replies = replies;
            this.messages = messages;
            this.steps = steps;
            this.child = child;
        }

        String key() {
            return conversation.key();
        }

        /** Where the person is: a sub-agent's questions go to its parent's conversation. */
        Conversation origin() {
            return child == null ? conversation : Conversation.fromKey(child.parent()).orElse(conversation);
        }
    }

    /** The turn running in a conversation, for {@code /stop}. */
    private static final class Running {
        final Thread thread;
        final Set<String> tasks = ConcurrentHashMap.newKeySet();
        volatile boolean stopped;
        private boolean active = true;

        Running(Thread thread) {
            this.thread = thread;
        }

        /** Interrupts the turn's thread, if it still runs the turn (its lane may since have moved on). */
        synchronized void interrupt() {
            if (active) {
                thread.interrupt();
            }
        }

        /** The turn is over: no interrupt reaches its thread from now on, and none is left pending. */
        synchronized void end() {
            active = false;
            Thread.interrupted();
        }
    }

    private void run(Turn turn) {
        if (turn.child != null) {
            children.runsHere(turn.child.id());
        }
        Running r = new Running(Thread.currentThread());
        running.put(turn.key(), r);
        try {
            loop(turn, r);
        } catch (ModelException e) {
            if (r.stopped) {
                stopped(turn, r);
                return;
            }
            turn.replies.finish();
            LOG.log(Level.WARNING, "The model failed in {0}: {1}", turn.key(), e.getMessage());
            turn.replies.send(new OutgoingMessage.Text("The model could not answer: " + e.getMessage()));
            keepPersonsMessage(turn);
        } catch (RuntimeException e) {
            if (!r.stopped && !(e instanceof CancellationException)) {
                throw e;
            }
            // Wherever the interrupt landed: a model call, a wait, a call into the router.
            stopped(turn, r);
        } finally {
            running.remove(turn.key(), r);
            r.end();
            if (turn.child != null) {
                childTurnEnded(turn, r);
            }
        }
    }

    /** A sub-agent's turn returned: unless it parked, the child ended, and its parent hears how. */
    private void childTurnEnded(Turn turn, Running r) {
        if (parked.get(turn.id).isPresent()) {
            return;
        }
        String answer = children.answer(turn.child.id());
        if (r.stopped) {
            children.end(turn.child.id(), SubAgents.State.STOPPED, "Stopped by the user.", host);
        } else if (turn.answered) {
            children.end(turn.child.id(), SubAgents.State.DONE, answer.isBlank() ? "(no answer)" : answer, host);
        } else {
            children.end(turn.child.id(), SubAgents.State.FAILED, answer.isBlank() ? "It failed inside the brain."
                    : answer, host);
        }
    }

    /** A stopped turn ends, and so does every task it started, including one submitted as /stop came. */
    private void stopped(Turn turn, Running r) {
        // No interrupt reaches this thread from now on: the cancels below call into the router.
        r.end();
        turn.replies.finish();
        r.tasks.forEach(id -> cancel(id, "stopped by the user"));
        LOG.log(Level.INFO, "Turn {0} in {1} stopped", turn.id, turn.key());
        keepPersonsMessage(turn);
    }

    /** After a failed turn, what the person said still belongs to the conversation; half a tool exchange does not. */
    private void keepPersonsMessage(Turn turn) {
        remember(turn, List.of(turn.messages.getFirst()));
    }

    /** Adds to the conversation's context; a sub-agent's ends with its turn, so it keeps none. */
    private void remember(Turn turn, List<ModelMessage> messages) {
        if (turn.child == null) {
            contexts.add(turn.key(), messages);
        }
    }

    private void loop(Turn turn, Running r) {
        Model m = model.orElseThrow();
        while (true) {
            if (r.stopped || (turn.child != null && children.get(turn.child.id())
                    .map(c -> c.state() != SubAgents.State.RUNNING).orElse(true))) {
                // Stopped, or a child stopped (by /stop in its parent) before its turn had begun.
                throw new CancellationException("the turn was stopped");
            }
            if (turn.steps >= settings.maxSteps()) {
                turn.replies.send(new OutgoingMessage.Text("I stopped after " + settings.maxSteps() + " steps without "
                        + "an answer (agent.max-steps). Tell me how to go on, or send /new to start afresh."));
                remember(turn, turn.messages);
                turn.answered = true;
                return;
            }
            // Each step sees the machines as they are now: one may have come or gone since the last.
            List<WorkerInfo> workers = router.workers();
            Map<String, Toolbox.Offered> catalogue = toolbox.catalogue();
            Map<String, Owned> own;
            String system = prompt.forConversation(turn.key(), workers);
            if (turn.child == null) {
                own = brainTools(turn.conversation, catalogue);
            } else {
                // A sub-agent has the machines' tools only (those it was given), and no one to ask but its task.
                own = Map.of();
                if (!turn.child.tools().isEmpty()) {
                    catalogue.keySet().retainAll(turn.child.tools());
                }
                system += "\n\nYou are a sub-agent, started by the assistant for one task; the user does not see "
                        + "what you say until you finish. Do the task with your tools and answer with its result, "
                        + "complete and brief: your last answer is what the assistant gets.";
            }
            List<ModelTool> tools = new ArrayList<>(catalogue.values().stream().map(Toolbox.Offered::tool).toList());
            if (turn.child == null) {
                tools.add(AskHuman.TOOL);
                tools.add(SubAgents.SPAWN_TOOL);
                tools.add(SubAgents.STATUS_TOOL);
                own.values().forEach(o -> tools.add(o.tool()));
            }
            int budget = settings.maxContextTokens() - Messages.tokens(system)
                    - tools.stream().mapToInt(t -> Messages.tokens(t.description() + t.inputSchema())).sum();
            List<ModelMessage> sent = Contexts.fit(contexts.load(turn.key()), turn.messages, budget);
            turn.steps++;
            ModelReply reply = m.complete(new ModelRequest(system, sent, tools), turn.replies::stream);
            turn.replies.finish();
            count(turn.key(), reply.usage());
            if (!reply.text().isEmpty() || !reply.toolCalls().isEmpty()) {
                // An answer that says nothing is not kept: some APIs refuse an empty message in the history.
                turn.messages.add(new ModelMessage.Assistant(reply.text(), reply.toolCalls()));
            }
            if (reply.toolCalls().isEmpty()) {
                if (reply.finish() == ModelReply.Finish.LENGTH) {
                    turn.replies.send(new OutgoingMessage.Text("(The answer was cut off: the model reached "
                            + "model.max-tokens.)"));
                } else if (reply.text().isBlank()) {
                    turn.replies.send(new OutgoingMessage.Text("(The model gave no answer.)"));
                }
                remember(turn, turn.messages);
                turn.answered = true;
                return;
            }
            if (!callTools(turn, r, reply.toolCalls(), catalogue, own)) {
                return;
            }
        }
    }

    /** Runs the calls; adds their results and returns true, or parks the turn and returns false. */
    private boolean callTools(Turn turn, Running r, List<ToolCall> calls, Map<String, Toolbox.Offered> catalogue,
                              Map<String, Owned> own) {
        Map<String, ModelMessage.ToolResult> answered = new LinkedHashMap<>();
        List<ParkedTurns.Pending> submitted = new ArrayList<>();
        List<ParkedTurns.Pending> waiting = new ArrayList<>();
        List<OutgoingMessage> told = new ArrayList<>();
        for (ToolCall call : calls) {
            if (r.stopped) {
                throw new CancellationException("the turn was stopped");
            }
            if (call.name().equals(SubAgents.SPAWN) || call.name().equals(SubAgents.STATUS)
                    || (call.name().equals(AskHuman.NAME) && turn.child != null)) {
                answered.put(call.id(), new ModelMessage.ToolResult(call.id(), call.name(), turn.child != null
                        ? "Refused: a sub-agent cannot " + (call.name().equals(AskHuman.NAME) ? "ask the user"
                        : "start or follow sub-agents (one level deep only)") + "; do the task yourself."
                        : call.name().equals(SubAgents.SPAWN) ? spawn(turn, call, catalogue)
                        : children.status(turn.key(), call.arguments()), turn.child != null));
                continue;
            }
            if (call.name().equals(AskHuman.NAME)) {
                answered.put(call.id(), new ModelMessage.ToolResult(call.id(), call.name(),
                        askHuman.ask(turn.conversation, turn.replies, call, host), false));
                continue;
            }
            Owned brainTool = own.get(call.name());
            if (brainTool != null) {
                answered.put(call.id(), new ModelMessage.ToolResult(call.id(), call.name(),
                        brainTool.by().call(turn.conversation, call), false));
                continue;
            }
            // The step is part of the key: a server that numbers its calls anew each answer must not get an old result.
            switch (toolbox.start(new Origin.Assistant(turn.conversation, turn.id, turn.steps, call.id()), call,
                    catalogue, turn.child == null ? "" : turn.child.worker().orElse(""), false)) {
                case Toolbox.Started.Answered a -> answered.put(call.id(),
                        new ModelMessage.ToolResult(call.id(), call.name(), a.content(), true));
                case Toolbox.Started.Submitted s -> {
                    Task task = s.submission().task();
                    r.tasks.add(task.id());
                    ParkedTurns.Pending pending = new ParkedTurns.Pending(call.id(), call.name(), task.id());
                    if (task.status() == TaskStatus.AWAITING_APPROVAL) {
                        // Held for a yes: the turn parks at once, and resumes when the call ran, was denied or
                        // its time ran out.
                        question(s, turn.origin()).ifPresent(told::add);
                        waiting.add(pending);
                    } else {
                        submitted.add(pending);
                    }
                }
            }
        }
        for (ParkedTurns.Pending p : submitted) {
            Optional<Task> done = await(p.taskId());
            if (done.isPresent()) {
                answered.put(p.callId(), result(p, done.get()));
            } else {
                waiting.add(p);
                told.add(new OutgoingMessage.Text(Wording.of(new Submission(router.task(p.taskId()).orElseThrow(),
                        Submission.Outcome.QUEUED_OFFLINE, Optional.empty()))));
            }
        }
        if (!waiting.isEmpty()) {
            ParkedTurns.Parked p = new ParkedTurns.Parked(turn.id, turn.key(), List.copyOf(turn.messages), answered,
                    waiting, turn.steps, clock.instant());
            parked.park(p);
            told.forEach(turn.replies::send);
            LOG.log(Level.INFO, "Turn {0} in {1} parked until task(s) {2} finish", turn.id, turn.key(),
                    waiting.stream().map(ParkedTurns.Pending::taskId).toList());
            watch(p);
            return false;
        }
        for (ToolCall call : calls) {
            turn.messages.add(answered.get(call.id()));
        }
        return true;
    }

    /** A tool of the brain itself, and the extension that answers it. */
    private record Owned(ModelTool tool, Extension by) {
    }

    /**
     * The brain's own tools in {@code conversation}, by name, and which extension answers each; a name a machine's
     * tool or an earlier extension already has is not offered twice (the first keeps it, and the clash is logged).
     */
    private Map<String, Owned> brainTools(Conversation conversation, Map<String, Toolbox.Offered> catalogue) {
        Map<String, Owned> own = new LinkedHashMap<>();
        for (Extension e : extensions) {
            for (ModelTool t : e.tools(conversation)) {
                if (catalogue.containsKey(t.name()) || own.containsKey(t.name()) || t.name().equals(AskHuman.NAME)) {
                    LOG.log(Level.WARNING, "The brain''s tool {0} has the name of another tool; the other is kept",
                            t.name());
                } else {
                    own.put(t.name(), new Owned(t, e));
                }
            }
        }
        return own;
    }

    /** {@link Calls#start}: a call as a turn of {@code conversation} would make it, without a model. */
    private Calls.Started callFor(Conversation conversation, String run, int step, String tool, ObjectNode params,
                                  boolean askFirst) {
        return started(new Origin.Automation(conversation, run, step), conversation, tool, params.deepCopy(),
                toolbox.catalogue(), askFirst);
    }

    /** {@link Calls#start} on {@code worker}, unless the tool takes a machine argument of its own. */
    private Calls.Started callFor(Conversation conversation, String run, int step, String tool, ObjectNode params,
                                  String worker, boolean askFirst) {
        Origin origin = new Origin.Automation(conversation, run, step);
        ObjectNode args = params.deepCopy();
        Map<String, Toolbox.Offered> catalogue = toolbox.catalogue();
        boolean ownWorkerArgument = Optional.ofNullable(catalogue.get(tool))
                .map(o -> o.info().descriptor().inputSchema().path("properties").has(Toolbox.WORKER)).orElse(false);
        if (!ownWorkerArgument) {
            args.put(Toolbox.WORKER, worker);
        }
        return started(origin, conversation, tool, args, catalogue, askFirst);
    }

    private Calls.Started started(Origin origin, Conversation conversation, String tool, ObjectNode args,
                                  Map<String, Toolbox.Offered> catalogue, boolean askFirst) {
        String callId = origin.idempotencyKey().orElseThrow();
        Toolbox.Started started = toolbox.start(origin, new ToolCall(callId, tool, args.toString()), catalogue, "",
                askFirst);
        return switch (started) {
            case Toolbox.Started.Answered a -> new Calls.Started.Refused(a.content());
            case Toolbox.Started.Submitted s -> {
                Task task = s.submission().task();
                if (task.status() == TaskStatus.AWAITING_APPROVAL
                        && s.submission().outcome() != Submission.Outcome.DUPLICATE) {
                    question(s, conversation).ifPresent(host.replies(conversation)::send);
                }
                yield new Calls.Started.Submitted(task);
            }
        };
    }

    /**
     * A call held for a yes: its question recorded, and the prompt to show in {@code origin}; empty where no one
     * can be asked there (the fallback applies at once).
     */
    private Optional<OutgoingMessage> question(Toolbox.Started.Submitted s, Conversation origin) {
        Task task = s.submission().task();
        approvals.asked(task, s.verdict(), s.call());
        if (host.reachable(origin)) {
            return Optional.of(questions.prompt(task, s.verdict()));
        }
        approvals.noOneToAsk(task, "its conversation has no channel that can show the question");
        return Optional.empty();
    }

    /** The child whose conversation {@code c} is, if it is one. */
    private Optional<SubAgents.Child> childOf(Conversation c) {
        return children.childOf(c.key());
    }

    /**
     * {@code spawn_agent}: a child in a context of its own, started in its own turn lane; its id at once, for the
     * model. What is wrong with the call, or a limit reached, is said instead.
     */
    private String spawn(Turn turn, ToolCall call, Map<String, Toolbox.Offered> catalogue) {
        SubAgents.Either made = children.spawn(turn.key(), call.arguments(), catalogue.keySet(), router.workers());
        if (made.child().isEmpty()) {
            return made.refusal();
        }
        SubAgents.Child child = made.child().get();
        LOG.log(Level.INFO, "Sub-agent {0} of {1} starts: {2}", child.id(), turn.key(), child.shortTask());
        turn.replies.send(new OutgoingMessage.Text("↳ Sub-agent " + child.id() + " started: " + child.shortTask()));
        host.inTurn(child.conversation(), () -> run(new Turn(Ids.next(), child.conversation(),
                children.replies(child, host), new ArrayList<>(List.of(new ModelMessage.User(child.task()))), 0,
                child)));
        return "Started sub-agent " + child.id() + ". It works on its own; its result is posted in this "
                + "conversation when it is done, and agent_status reads it. Do not wait for it.";
    }

    private ModelMessage.ToolResult result(ParkedTurns.Pending p, Task task) {
        return new ModelMessage.ToolResult(p.callId(), p.tool(), toolbox.content(task), toolbox.failed(task));
    }

    /** The finished task; empty when it waits for a machine that is offline. Interrupted: the turn was stopped. */
    private Optional<Task> await(String taskId) {
        try {
            // The router says when the task waits for a machine that is gone: no asking again and again meanwhile.
            return switch (router.finishedOrOffline(taskId).get()) {
                case Awaited.Finished finished -> Optional.of(finished.task());
                case Awaited.Offline offline -> Optional.empty();
            };
        } catch (InterruptedException e) {
            throw new CancellationException("the turn was stopped");
        } catch (ExecutionException e) {
            throw new IllegalStateException("waiting for task " + taskId + " failed", e.getCause());
        }
    }

    /** Resumes {@code p} in its conversation's turn lane once each of its tasks has finished. */
    private void watch(ParkedTurns.Parked p) {
        Conversation c = Conversation.fromKey(p.conversation()).orElseThrow();
        for (ParkedTurns.Pending pending : p.pending()) {
            router.completion(pending.taskId()).whenComplete((task, e) -> host.inTurn(c, () -> resume(p.turnId())));
        }
    }

    private void resume(String turnId) {
        Optional<ParkedTurns.Parked> found = parked.get(turnId);
        if (found.isEmpty()) {
            return;
        }
        ParkedTurns.Parked p = found.get();
        Map<String, ModelMessage.ToolResult> answered = new LinkedHashMap<>(p.answered());
        for (ParkedTurns.Pending pending : p.pending()) {
            Optional<Task> task = router.task(pending.taskId());
            if (task.isEmpty()) {
                answered.put(pending.callId(), new ModelMessage.ToolResult(pending.callId(), pending.tool(),
                        "The task " + pending.taskId() + " is gone; its result was not kept.", true));
            } else if (task.get().status().isFinished()) {
                answered.put(pending.callId(), result(pending, task.get()));
            } else {
                return;
            }
        }
        // Whoever removes it resumes it: another brain over the same database may have heard the same task finish.
        if (!parked.remove(turnId)) {
            return;
        }
        Conversation c = Conversation.fromKey(p.conversation()).orElseThrow();
        LOG.log(Level.INFO, "Turn {0} in {1} resumes: its tasks finished", turnId, p.conversation());
        SubAgents.Child child = childOf(c).orElse(null);
        Turn turn = new Turn(turnId, c, child == null ? host.replies(c) : children.replies(child, host),
                new ArrayList<>(p.messages()), p.steps(), child);
        ModelMessage.Assistant asked = (ModelMessage.Assistant) p.messages().getLast();
        for (ToolCall call : asked.toolCalls()) {
            turn.messages.add(answered.getOrDefault(call.id(), new ModelMessage.ToolResult(call.id(), call.name(),
                    "No result was kept for this call.", true)));
        }
        run(turn);
    }

    private void expireParked() {
        try {
            // A child whose brain stopped while its turn ran (not parked) cannot go on: its parent hears so.
            children.alive();
            children.endOrphans(parked.all().stream().map(ParkedTurns.Parked::conversation)
                    .collect(Collectors.toSet()), host);
            for (ParkedTurns.Parked p : parked.all()) {
                if (p.parkedAt().plus(settings.parkTimeout()).isAfter(clock.instant()) || !parked.remove(p.turnId())) {
                    continue;
                }
                p.pending().forEach(pending -> cancel(pending.taskId(), "the turn that asked for it stopped waiting"));
                Conversation c = Conversation.fromKey(p.conversation()).orElseThrow();
                String tasks = String.join(", ", p.pending().stream().map(x -> x.tool() + " (" + x.taskId() + ")")
                        .toList());
                LOG.log(Level.INFO, "Parked turn {0} in {1} ended after {2}", p.turnId(), p.conversation(),
                        settings.parkTimeout());
                Optional<SubAgents.Child> child = childOf(c);
                if (child.isPresent()) {
                    children.end(child.get().id(), SubAgents.State.FAILED, "It stopped waiting for " + tasks
                            + " after " + DurationText.of(settings.parkTimeout()) + " (agent.park-timeout).", host);
                    continue;
                }
                host.replies(c).send(new OutgoingMessage.Text("I stopped waiting for " + tasks + " after "
                        + DurationText.of(settings.parkTimeout()) + " (agent.park-timeout): the machine did not come back. "
                        + "The task is cancelled; ask again when the machine is online."));
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not check the parked turns; trying again later", e);
        }
    }

    private String stop(Conversation c) {
        int cancelled = 0;
        int stoppedChildren = 0;
        for (SubAgents.Child child : children.of(c.key())) {
            if (child.state() == SubAgents.State.RUNNING) {
                stop(child.conversation());
                // Ended here, or by its own turn as it noticed: stopped either way.
                children.end(child.id(), SubAgents.State.STOPPED, "Stopped by the user.", host);
                stoppedChildren++;
            }
        }
        Running r = running.get(c.key());
        if (r != null) {
            // Marked first: a task the turn submits from now on is cancelled by the turn itself as it ends.
            r.stopped = true;
            r.interrupt();
            for (String id : r.tasks) {
                cancelled += cancel(id, "stopped by the user") ? 1 : 0;
            }
        }
        int parkedTurns = 0;
        for (ParkedTurns.Parked p : parked.all()) {
            if (p.conversation().equals(c.key()) && parked.remove(p.turnId())) {
                parkedTurns++;
                for (ParkedTurns.Pending pending : p.pending()) {
                    cancelled += cancel(pending.taskId(), "stopped by the user") ? 1 : 0;
                }
            }
        }
        int runs = 0;
        for (Extension e : extensions) {
            runs += e.stop(c);
        }
        if (r == null && parkedTurns == 0 && stoppedChildren == 0 && runs == 0) {
            return "Nothing is running.";
        }
        List<String> what = new ArrayList<>();
        if (stoppedChildren > 0) {
            what.add(stoppedChildren + " sub-agent" + (stoppedChildren == 1 ? "" : "s"));
        }
        if (runs > 0) {
            what.add(runs + " automation run" + (runs == 1 ? "" : "s"));
        }
        return "Stopped" + (what.isEmpty() ? "" : " " + String.join(" and ", what)) + (cancelled == 0 ? ""
                : "; cancelled " + cancelled + " task" + (cancelled == 1 ? "" : "s")) + ".";
    }

    /** Cancels a task that has not finished; whether it did. */
    private boolean cancel(String taskId, String reason) {
        try {
            router.cancel(taskId, reason);
            return true;
        } catch (RouterException e) {
            // Finished or gone meanwhile: nothing to cancel.
            return false;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not cancel task " + taskId + " (" + reason + ")", e);
            return false;
        }
    }

    private void count(String conversation, Usage used) {
        usage.merge(conversation, used, Usage::plus);
        total.accumulateAndGet(used, Usage::plus);
    }

    private static List<OutgoingMessage> say(String text) {
        return List.of(new OutgoingMessage.Text(text));
    }

    /** What the constructors without a model pass on: no language model is configured. */
    private static final class Unconfigured implements Model {
        @Override
        public String describe() {
            return "none";
        }

        @Override
        public ModelReply complete(ModelRequest request, ModelListener listener) {
            throw new IllegalStateException("no language model is configured");
        }
    }
}
