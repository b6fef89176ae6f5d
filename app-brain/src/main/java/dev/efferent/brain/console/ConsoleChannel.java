package dev.efferent.brain.console;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.brain.Views;
import dev.efferent.channel.spi.Channel;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.Inbox;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.conversations.ConversationEntry;
import dev.efferent.queue.Progress;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskStatus;
import dev.efferent.router.Router;
import dev.efferent.router.RouterListener;
import dev.efferent.router.WorkerInfo;
import io.helidon.websocket.WsSession;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The web console as a channel: each browser tab is a conversation ({@code console:<id>}); every tab also
 * gets the live task and worker lists, pushed shortly after anything changes and every two seconds.
 */
public final class ConsoleChannel implements Channel, RouterListener {
    private static final System.Logger LOG = System.getLogger(ConsoleChannel.class.getName());
    static final String NAME = "console";

    private final Router router;
    /** What a console shows again when it opens: a page reloaded keeps its conversation. */
    private final Function<Conversation, List<ConversationEntry>> history;
    private final ObjectMapper json;
    /** The last word on a task's approval, if it needed one. */
    private final Function<String, Optional<String>> approval;
    private final Predicate<String> paired;
    private final Views views;
    private final Map<WsSession, String> sessions = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("efferent-console").daemon().factory());
    private final AtomicBoolean snapshotPending = new AtomicBoolean();
    private volatile Inbox inbox;

    /**
     * A console. It hears the router's events as a {@link RouterListener}, once the brain's assembly registers it.
     *
     * @param router   where the task and worker lists come from
     * @param history  what a conversation said so far, shown again when its console opens
     * @param json     the brain's JSON mapper
     * @param approval what became of a task's approval, if it needed one: a line such as
     *                 {@code approved by console:abc (once)}
     * @param paired   which workers joined by pairing (by worker id), which the console offers to revoke
     */
    public ConsoleChannel(Router router, Function<Conversation, List<ConversationEntry>> history, ObjectMapper json,
                          Function<String, Optional<String>> approval, Predicate<String> paired) {
        this.paired = paired;
        this.approval = approval;
        this.json = json;
        this.views = new Views(json);
        this.router = router;
        this.history = history;
    }

    @Override
    public String name() {
        return NAME;
    }

    ObjectMapper json() {
        return json;
    }

    @Override
    public void start(Inbox inbox) {
        this.inbox = inbox;
        timer.scheduleWithFixedDelay(this::pushState, 2, 2, TimeUnit.SECONDS);
    }

    Inbox inbox() {
        return inbox;
    }

    void opened(WsSession session, String conversation) {
        sessions.put(session, conversation);
        ObjectNode hello = json.createObjectNode().put("type", "hello").put("conversation", conversation);
        write(session, hello);
        ObjectNode said = json.createObjectNode().put("type", "history");
        var messages = said.putArray("messages");
        for (ConversationEntry e : history.apply(new Conversation(NAME, conversation))) {
            var m = messages.addObject().put("from", e.fromPerson() ? "person" : "assistant").put("kind", e.kind())
                    .put("text", e.text()).put("ok", e.ok()).put("at", e.at().toString());
            e.taskId().ifPresent(id -> m.put("taskId", id));
        }
        write(session, said);
        write(session, state());
    }

    void closed(WsSession session) {
        sessions.remove(session);
    }

    @Override
    public void send(Conversation conversation, OutgoingMessage message) {
        ObjectNode m = json.createObjectNode().put("type", "message").put("text", message.text());
        switch (message) {
            case OutgoingMessage.Text t -> m.put("kind", "text");
            case OutgoingMessage.Progress p -> m.put("kind", "progress").put("taskId", p.taskId()).put("percent", p.percent());
            case OutgoingMessage.Result r -> m.put("kind", "result").put("taskId", r.taskId()).put("ok", r.ok());
            case OutgoingMessage.Image i -> m.put("kind", "image").put("mimeType", i.mimeType()).put("data", i.data());
            // While it grows, only the new part travels: a long reply sent whole each time would be quadratic.
            case OutgoingMessage.Streamed s -> m.put("kind", "streamed").put("replyId", s.replyId()).put("done", s.done())
                    .put("text", s.done() ? s.text() : s.appended());
            case OutgoingMessage.PromptClosed c -> m.put("kind", "prompt-closed").put("promptId", c.promptId());
            case OutgoingMessage.Prompt p -> {
                m.put("kind", "prompt").put("promptId", p.promptId()).put("question", p.question());
                var choices = m.putArray("choices");
                p.choices().forEach(c -> choices.addObject().put("label", c.label()).put("command", c.command()));
            }
        }
        sessions.forEach((session, id) -> {
            if (id.equals(conversation.id())) {
                write(session, m);
            }
        });
        scheduleState();
    }

    @Override
    public void submitted(Task task, boolean offline) {
        scheduleState();
    }

    @Override
    public void dispatched(Task task, String workerId, Duration waited) {
        scheduleState();
    }

    @Override
    public void progress(Task task, int percent, String message) {
        scheduleState();
    }

    @Override
    public void finished(Task task) {
        scheduleState();
    }

    @Override
    public void workerOnline(WorkerInfo worker) {
        scheduleState();
    }

    @Override
    public void workerOffline(WorkerInfo worker) {
        scheduleState();
    }

    /** Pushes the lists soon: a burst of events makes one push. */
    private void scheduleState() {
        if (!sessions.isEmpty() && snapshotPending.compareAndSet(false, true)) {
            timer.schedule(() -> {
                snapshotPending.set(false);
                pushState();
            }, 150, TimeUnit.MILLISECONDS);
        }
    }

    private void pushState() {
        if (sessions.isEmpty()) {
            return;
        }
        try {
            ObjectNode state = state();
            sessions.keySet().forEach(s -> write(s, state));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not build the console's task and worker lists: {0}", e.getMessage());
        }
    }

    private ObjectNode state() {
        List<WorkerInfo> workers = router.workers();
        Map<String, String> names = workers.stream().collect(Collectors.toMap(WorkerInfo::id, WorkerInfo::name, (a, b) -> a));
        Function<String, String> name = id -> names.getOrDefault(id, id);
        ObjectNode state = json.createObjectNode().put("type", "state").put("hands", router.settings().handsEnabled());
        ArrayNode tasks = state.putArray("tasks");
        List<Task> active = router.tasks(EnumSet.of(TaskStatus.AWAITING_APPROVAL, TaskStatus.QUEUED, TaskStatus.CLAIMED,
                TaskStatus.RUNNING), 100);
        List<Task> recent = router.newestTasks(TaskStatus.FINISHED, 20);
        for (Task t : active) {
            Optional<Progress> progress = router.progress(t);
            ObjectNode v = views.task(t, name).put("progress", progress.map(Progress::percent).orElse(0))
                    .put("progressMessage", progress.map(Progress::message).orElse(""));
            approval.apply(t.id()).ifPresent(a -> v.put("approval", a));
            tasks.add(v.without("result"));
        }
        for (Task t : recent) {
            ObjectNode v = views.task(t, name).put("progress", 100);
            approval.apply(t.id()).ifPresent(a -> v.put("approval", a));
            tasks.add(v.without(Set.of("result", "params")));
        }
        ArrayNode ws = state.putArray("workers");
        // The brain's own process too, first: tasks can run "on brain".
        workers.stream().sorted(Comparator.comparing(w -> !w.local())).forEach(w -> {
            ObjectNode v = views.worker(w);
            v.remove("tools");
            ws.add(v.put("paired", paired.test(w.id())));
        });
        return state;
    }

    private void write(WsSession session, ObjectNode message) {
        String text;
        try {
            text = json.writeValueAsString(message);
        } catch (JsonProcessingException e) {
            LOG.log(Level.WARNING, "Could not write a console message: {0}", e.getMessage());
            return;
        }
        try {
            synchronized (session) {
                session.send(text, true);
            }
        } catch (RuntimeException e) {
            // A closed tab: expected, and the tab is forgotten.
            LOG.log(Level.DEBUG, "Console tab gone: {0}", e.getMessage());
            sessions.remove(session);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        sessions.keySet().forEach(s -> {
            try {
                s.close(1001, "brain shutting down");
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "Closing a console tab failed: {0}", e.getMessage());
            }
        });
    }
}
