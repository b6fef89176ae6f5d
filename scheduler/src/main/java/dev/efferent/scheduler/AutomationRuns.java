package dev.efferent.scheduler;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.assistant.AssistantHost;
import dev.efferent.assistant.Calls;
import dev.efferent.calls.Outcome;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.plugin.Ids;
import dev.efferent.queue.Task;
import dev.efferent.router.Router;
import dev.efferent.store.Codec;
import dev.efferent.store.Namespace;
import dev.efferent.store.Space;
import dev.efferent.store.Store;
import dev.efferent.tools.spi.Content;
import dev.efferent.tools.spi.ToolResult;

import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Automations being replayed: each step a task, one after the other, on one machine. A run is kept in the store
 * (with PostgreSQL, in the database) with the step it is at and that step's task, so a step held for a yes, or a
 * brain restart, only pauses it: it goes on from where it stopped when the task finishes.
 */
final class AutomationRuns implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(AutomationRuns.class.getName());
    /** More runs than go on at once; a list past it is cut rather than read without end. */
    private static final int MAX = 10_000;
    /** Longest output of the last step shown when a run ends. */
    private static final int SHOWN = 1500;

    /** A run: what is replayed, with which values, where, and how far it got. */
    private record Run(String id, Automation automation, Map<String, String> values, String conversation,
                       Optional<String> worker, int step, Optional<String> task) {
    }

    private final Router router;
    /** The runs, by id, as text: compare-and-set moves a run on from the text that was read. */
    private final Space<String> records;
    private final ObjectMapper json;
    /** Runs advance here, one step at a time: never on the router's thread, which completes the tasks. */
    private final ExecutorService steps = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().name("efferent-automations").daemon().factory());
    private volatile AssistantHost host;
    private final Set<String> unreadable = ConcurrentHashMap.newKeySet();
    private volatile Calls calls;

    AutomationRuns(Router router, Store store, ObjectMapper json) {
        this.router = router;
        this.records = store.claim(new Namespace<>("scheduler.automation-runs", Codec.text()), AutomationStore.OWNER);
        this.json = json;
    }

    /** Starts: runs kept from before (a restart) wait for their step's task again. */
    void start(AssistantHost host, Calls calls) {
        this.host = host;
        this.calls = calls;
        records.entries(MAX).forEach((key, data) -> read(key, data).ifPresent(run -> {
            LOG.log(Level.INFO, "Automation run {0} ({1}) goes on at step {2}", run.id(), run.automation().name(),
                    run.step() + 1);
            if (run.task().isPresent()) {
                watch(run);
            } else {
                steps.execute(() -> advance(run, data));
            }
        }));
    }

    /**
     * Starts replaying {@code a} in {@code conversation}, on {@code worker} (blank for the conversation's active
     * machine, or any); what to tell whoever asked.
     */
    String run(Conversation conversation, Automation a, Map<String, String> values, String worker) {
        // 60 random bits: a run id is part of its steps' idempotency keys, which must never meet an old run's.
        Run run = new Run("r-" + Ids.next(), a, Map.copyOf(values), conversation.key(),
                Optional.of(worker).filter(w -> !w.isBlank()), 0, Optional.empty());
        String data = write(run);
        records.put(run.id(), data);
        LOG.log(Level.INFO, "Automation {0} runs ({1}) in {2}", a.name(), run.id(), conversation.key());
        steps.execute(() -> advance(run, data));
        return "Started automation " + a.name() + " (run " + run.id() + "): " + steps(a) + ", one after the other; "
                + "the outcome is posted here.";
    }

    /** Starts {@code run}'s current step, or ends it after its last. {@code data} is what is stored of it. */
    private void advance(Run run, String data) {
        try {
            Automation a = run.automation();
            if (run.step() >= a.steps().size()) {
                end(run, "Automation " + a.name() + " done (run " + run.id() + "): " + steps(a) + " ran.");
                return;
            }
            Automation.Step step = a.steps().get(run.step());
            ObjectNode params = a.params(run.step(), run.values());
            Optional<String> outside = a.outsideScope(params);
            if (outside.isPresent()) {
                end(run, stoppedAt(run) + " was not run: " + outside.get() + ".");
                return;
            }
            Calls.Started started = calls.start(conversation(run), run.id(), run.step(), step.tool(), params,
                    run.worker().orElse(""), step.approval());
            switch (started) {
                case Calls.Started.Refused r -> end(run, stoppedAt(run) + " was refused: " + r.reason());
                case Calls.Started.Submitted s -> {
                    Run waiting = new Run(run.id(), a, run.values(), run.conversation(), run.worker(), run.step(),
                            Optional.of(s.task().id()));
                    // Another brain that got there first has the same task (its key) and goes on with it.
                    if (records.compareAndSet(run.id(), data, write(waiting))) {
                        watch(waiting);
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Automation run " + run.id() + " could not go on", e);
            end(run, stoppedAt(run) + " could not start: " + e.getMessage());
        }
    }

    /** Stops run {@code id}: no further step starts, and the current one is cancelled. Whether it was going on. */
    boolean stop(String id) {
        Optional<Run> run = records.get(id).flatMap(d -> read(id, d));
        return run.isPresent() && stop(run.get());
    }

    /** Stops every run of {@code conversation}; how many. */
    int stopAll(Conversation conversation) {
        int stopped = 0;
        for (Map.Entry<String, String> e : records.entries(MAX).entrySet()) {
            Optional<Run> run = read(e.getKey(), e.getValue());
            if (run.isPresent() && run.get().conversation().equals(conversation.key()) && stop(run.get())) {
                stopped++;
            }
        }
        return stopped;
    }

    private boolean stop(Run run) {
        // Gone from the records first: the step's end, when it comes, finds no run to go on with.
        if (!records.remove(run.id())) {
            return false;
        }
        run.task().ifPresent(t -> {
            try {
                router.cancel(t, "its automation run was stopped");
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "Task {0} of run {1} had already ended: {2}", t, run.id(), e.getMessage());
            }
        });
        LOG.log(Level.INFO, "Automation run {0} ({1}) stopped", run.id(), run.automation().name());
        return true;
    }

    private void watch(Run run) {
        router.completion(run.task().orElseThrow()).whenComplete((task, e) -> steps.execute(() -> stepDone(run.id())));
    }

    /** The current step's task of run {@code id} finished: the next step, or the end. */
    private void stepDone(String id) {
        Optional<String> data = records.get(id);
        Optional<Run> found = data.flatMap(d -> read(id, d));
        if (found.isEmpty() || found.get().task().isEmpty()) {
            return;
        }
        Run run = found.get();
        Optional<Task> task = router.task(run.task().get());
        if (task.isEmpty()) {
            end(run, stoppedAt(run) + ": its task " + run.task().get() + " is gone.");
            return;
        }
        Task t = task.get();
        if (!t.status().isFinished()) {
            return;
        }
        Outcome outcome = Outcome.of(t).orElseThrow();
        if (!(outcome instanceof Outcome.Completed completed) || !outcome.ok()) {
            end(run, stoppedAt(run) + " (task " + t.id() + ") " + switch (outcome) {
                case Outcome.Cancelled c -> "did not run: " + c.reason();
                case Outcome.Completed c -> "failed: " + cut(text(c.result()));
                case Outcome.Failed f -> "failed: " + f.error();
            } + ".");
            return;
        }
        ToolResult result = completed.result();
        // Every later step runs on the machine the first one ran on.
        Optional<String> worker = run.worker().or(t::leaseOwner);
        Run next = new Run(run.id(), run.automation(), run.values(), run.conversation(), worker, run.step() + 1,
                Optional.empty());
        String nextData = write(next);
        if (!records.compareAndSet(id, data.get(), nextData)) {
            return;
        }
        if (next.step() >= run.automation().steps().size()) {
            end(next, "Automation " + run.automation().name() + " done (run " + id + "): " + steps(run.automation())
                    + " ran. The last one said:\n" + cut(text(result)));
        } else {
            advance(next, nextData);
        }
    }

    private String stoppedAt(Run run) {
        Automation a = run.automation();
        return "Automation " + a.name() + " (run " + run.id() + ") stopped: step " + (run.step() + 1) + " of "
                + a.steps().size() + " (" + a.steps().get(Math.min(run.step(), a.steps().size() - 1)).tool() + ")";
    }

    /** The run is over: forgotten, and said in its conversation. */
    private void end(Run run, String said) {
        if (!records.remove(run.id())) {
            return;
        }
        LOG.log(Level.INFO, said);
        host.replies(conversation(run)).send(new OutgoingMessage.Text(said));
    }

    private static String steps(Automation a) {
        return a.steps().size() + (a.steps().size() == 1 ? " step" : " steps");
    }

    private static Conversation conversation(Run run) {
        return Conversation.fromKey(run.conversation()).orElseThrow();
    }

    private static String text(ToolResult result) {
        StringBuilder out = new StringBuilder();
        for (Content c : result.content()) {
            if (c instanceof Content.Text t) {
                out.append(t.text());
            }
        }
        return out.toString().strip();
    }

    private static String cut(String text) {
        return text.length() <= SHOWN ? text : text.substring(0, SHOWN) + " […]";
    }

    private String write(Run run) {
        ObjectNode o = json.createObjectNode().put("id", run.id()).put("conversation", run.conversation())
                .put("step", run.step());
        try {
            o.set("automation", json.readTree(run.automation().write(json)));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an automation written as JSON cannot be read back", e);
        }
        ObjectNode values = o.putObject("values");
        run.values().forEach(values::put);
        run.worker().ifPresent(w -> o.put("worker", w));
        run.task().ifPresent(t -> o.put("task", t));
        return o.toString();
    }

    private Optional<Run> read(String key, String data) {
        try {
            JsonNode o = json.readTree(data);
            Map<String, String> values = new LinkedHashMap<>();
            o.path("values").fields().forEachRemaining(e -> values.put(e.getKey(), e.getValue().asText()));
            return Optional.of(new Run(o.path("id").asText(), Automation.read(o.path("automation")), values,
                    o.path("conversation").asText(), Optional.ofNullable(o.get("worker")).map(JsonNode::asText),
                    o.path("step").asInt(), Optional.ofNullable(o.get("task")).map(JsonNode::asText)));
        } catch (JsonProcessingException | RuntimeException e) {
            // Left as it is (a newer brain over the same database may know its form), and said once.
            if (unreadable.add(key)) {
                LOG.log(Level.WARNING, "Automation run " + key + " cannot be read by this brain and is left alone: "
                        + e.getMessage());
            }
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        steps.shutdownNow();
    }
}
