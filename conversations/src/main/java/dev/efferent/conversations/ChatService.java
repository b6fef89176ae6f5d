package dev.efferent.conversations;

import dev.efferent.assistant.Assistant;
import dev.efferent.assistant.AssistantHost;
import dev.efferent.assistant.Replies;
import dev.efferent.calls.Gateway;
import dev.efferent.calls.Origin;
import dev.efferent.calls.Origins;
import dev.efferent.channel.spi.Channel;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.Inbox;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.plugin.Ids;
import dev.efferent.queue.Task;
import dev.efferent.router.Router;
import dev.efferent.router.RouterListener;
import dev.efferent.router.WorkerInfo;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The assistant's side of every conversation: commands in, replies out, and the checkpoints of the tasks a
 * conversation started, in the order they happened. Also tells conversations when a machine their tasks run on
 * goes offline or comes back. It hears those as a {@link RouterListener}: whoever assembles it registers it with the
 * router ({@code router.addListener(chat)}), as the brain's assembly does.
 */
public final class ChatService implements Inbox, RouterListener, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ChatService.class.getName());

    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    private final CommandHandler commands;
    private final Checkpoints checkpoints;
    private final Duration progressInterval;
    private final Clock clock;
    /** When each running task's progress was last sent, to send at most one per interval. */
    private final Map<String, Instant> lastProgressSent = new ConcurrentHashMap<>();
    /** Conversations with tasks on a worker, by worker id, and those told it went offline. */
    private final Map<String, Set<String>> onWorker = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> toldOffline = new ConcurrentHashMap<>();
    /** Conversation keys waiting for some worker because their task was queued while none was online. */
    private final Set<String> waitingForAny = ConcurrentHashMap.newKeySet();
    /**
     * Each conversation's messages, replies and checkpoints, in order, one at a time; never on the router's
     * thread, which must not wait on a chat, and never behind another conversation.
     */
    private final ConversationLanes lanes = new ConversationLanes();
    /**
     * The assistant's turns, one at a time per conversation, apart from the lanes: what it sends goes out at once,
     * and a command (an answer to its prompt) is handled while its turn waits.
     */
    private final ConversationLanes turns = new ConversationLanes();
    private final Assistant assistant;
    private final ConversationStore store;
    private final Router router;
    private final AssistantHost host;
    private final AtomicBoolean started = new AtomicBoolean();

    /**
     * A chat service.
     *
     * @param gateway          runs what people ask for
     * @param assistant        answers text that is not a command
     * @param maxChars         longest output shown in one message
     * @param progressInterval at most one progress message per task this often
     * @param clock            for ages and rate limits
     */
    public ChatService(Gateway gateway, Assistant assistant, int maxChars, Duration progressInterval, Clock clock) {
        this(gateway, assistant, new MemoryConversationStore(), maxChars, progressInterval, clock);
    }

    /**
     * A chat service that keeps what is said in {@code store}.
     *
     * @param router           runs what people ask for
     * @param assistant        answers text that is not a command
     * @param store            keeps each conversation's messages
     * @param maxChars         longest output shown in one message
     * @param progressInterval at most one progress message per task this often
     * @param clock            for ages and rate limits
     */
    public ChatService(Gateway gateway, Assistant assistant, ConversationStore store, int maxChars,
                       Duration progressInterval, Clock clock) {
        Router router = gateway.router();
        this.store = store;
        this.assistant = assistant;
        this.commands = new CommandHandler(gateway, assistant, clock);
        this.checkpoints = new Checkpoints(maxChars);
        this.progressInterval = progressInterval;
        this.clock = clock;
        this.router = router;
        this.host = new AssistantHost() {
            @Override
            public Replies replies(Conversation conversation) {
                return ChatService.this.replies(conversation, null);
            }

            @Override
            public void notifyElsewhere(Conversation origin, OutgoingMessage message) {
                for (String channel : channels.keySet()) {
                    if (channel.equals(origin.channel())) {
                        continue;
                    }
                    store.conversations(channel + ":", 1).stream().findFirst().flatMap(Conversation::fromKey)
                            .ifPresent(c -> lanes.post(c.key(), () -> send(c, message)));
                }
            }

            @Override
            public void prompt(IncomingMessage message) {
                handle(message, false);
            }

            @Override
            public boolean reachable(Conversation conversation) {
                return channels.containsKey(conversation.channel());
            }

            @Override
            public void inTurn(Conversation conversation, Runnable turn) {
                turns.post(conversation.key(), () -> {
                    try {
                        turn.run();
                    } catch (RuntimeException e) {
                        LOG.log(Level.WARNING, "The assistant failed in " + conversation.key(), e);
                        lanes.post(conversation.key(), () -> send(conversation, new OutgoingMessage.Text(
                                "That failed inside the brain: " + e.getMessage())));
                    }
                });
            }
        };
    }

    /**
     * Starts the assistant, which may at once resume work it set aside (a parked turn): call it once the channels
     * are added, so that what it says reaches them. The first message starts it too.
     */
    public void start() {
        if (started.compareAndSet(false, true)) {
            assistant.start(host);
        }
    }

    /** Adds a channel and starts it. */
    public void add(Channel channel) {
        channels.put(channel.name(), channel);
        channel.start(this);
    }

    @Override
    public void receive(IncomingMessage message) {
        handle(message);
    }

    /**
     * Handles {@code message} as {@link #receive} does, and says when it is done: a command answered, or the
     * assistant's turn ended or set aside to wait (a parked turn answers later, apart from this).
     *
     * @return what was said in reply, in order, once all of it has gone out
     */
    public CompletableFuture<List<ConversationEntry>> handle(IncomingMessage message) {
        return handle(message, true);
    }

    /** {@link #handle(IncomingMessage)}; {@code fromPerson}: free text may answer what the assistant waits for. */
    private CompletableFuture<List<ConversationEntry>> handle(IncomingMessage message, boolean fromPerson) {
        start();
        Conversation c = message.conversation();
        CompletableFuture<List<ConversationEntry>> done = new CompletableFuture<>();
        List<ConversationEntry> said = new CopyOnWriteArrayList<>();
        // In the conversation's lane: a fast task's checkpoint cannot overtake the reply that announced it.
        lanes.post(c.key(), () -> {
            try {
                handleInLane(message, c, said, done, fromPerson);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
                throw e;
            }
        });
        return done;
    }

    private void handleInLane(IncomingMessage message, Conversation c, List<ConversationEntry> said,
                              CompletableFuture<List<ConversationEntry>> done, boolean fromPerson) {
        LOG.log(Level.DEBUG, "{0} ({1}): {2}", c.key(), message.sender(), message.text());
        if (message.text().isBlank()) {
            done.complete(List.of());
            return;
        }
        if (!CommandHandler.isCommand(message.text())) {
            keep(new ConversationEntry(c.key(), true, "text", message.text(), true, Optional.empty(),
                    clock.instant()));
            if (fromPerson && assistant.interject(message)) {
                done.complete(List.copyOf(said));
                return;
            }
            turns.post(c.key(), () -> {
                try {
                    assistant.onMessage(message, replies(c, said));
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "The assistant failed in " + c.key() + ": " + message.text(), e);
                    lanes.post(c.key(), () -> sendKept(c, new OutgoingMessage.Text("That failed inside the brain: "
                            + e.getMessage()), said));
                } finally {
                    // After what the turn sent, which is ahead of it in the lane.
                    lanes.post(c.key(), () -> done.complete(List.copyOf(said)));
                }
            });
            return;
        }
        Instant at = clock.instant();
        List<String> started = new ArrayList<>(1);
        List<OutgoingMessage> replies;
        try {
            replies = commands.handle(message, started::add);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Handling a message failed in " + c.key() + ": " + message.text(), e);
            replies = List.of(new OutgoingMessage.Text("That failed inside the brain: " + e.getMessage()));
        }
        // Kept with the task it started, before the replies: a reload shows them in order.
        keep(new ConversationEntry(c.key(), true, "text", message.text(), true, started.stream().findFirst(), at));
        replies.forEach(r -> sendKept(c, r, said));
        done.complete(List.copyOf(said));
    }

    /** Sends {@code message}, adding what was kept of it to {@code said}. */
    private void sendKept(Conversation c, OutgoingMessage message, List<ConversationEntry> said) {
        ConversationEntry entry = send(c, message);
        if (said != null && entry != null) {
            said.add(entry);
        }
    }

    /** The way back to {@code c} for the assistant: what it sends joins the conversation's lane. */
    private Replies replies(Conversation c, List<ConversationEntry> said) {
        return new Replies() {
            private String replyId;
            private StringBuilder text;

            @Override
            public void send(OutgoingMessage message) {
                lanes.post(c.key(), () -> sendKept(c, message, said));
            }

            @Override
            public synchronized void stream(String appended) {
                if (replyId == null) {
                    replyId = Ids.next();
                    text = new StringBuilder();
                }
                text.append(appended);
                send(new OutgoingMessage.Streamed(replyId, appended, text.toString(), false));
            }

            @Override
            public synchronized void finish() {
                if (replyId != null) {
                    send(new OutgoingMessage.Streamed(replyId, "", text.toString(), true));
                    replyId = null;
                }
            }
        };
    }

    @Override
    public void submitted(Task task, boolean offline) {
        if (offline) {
            task.session().ifPresent(r -> {
                if (task.targetWorker().isPresent()) {
                    toldOffline.computeIfAbsent(task.targetWorker().get(), k -> ConcurrentHashMap.newKeySet()).add(r);
                } else {
                    waitingForAny.add(r);
                }
            });
        }
    }

    @Override
    public void dispatched(Task task, String workerId, Duration waited) {
        task.session().ifPresent(r -> onWorker.computeIfAbsent(workerId, k -> ConcurrentHashMap.newKeySet()).add(r));
    }

    @Override
    public void progress(Task task, int percent, String message) {
        Instant now = clock.instant();
        Instant last = lastProgressSent.get(task.id());
        if (last != null && Duration.between(last, now).compareTo(progressInterval) < 0) {
            return;
        }
        lastProgressSent.put(task.id(), now);
        deliver(task, List.of(Checkpoints.progress(task.id(), percent, message)));
    }

    @Override
    public void finished(Task task) {
        lastProgressSent.remove(task.id());
        Optional<Origin> origin = Origins.of(task);
        if (origin.map(o -> o.standing().reportedByCaller()).orElse(false)) {
            // One line: the assistant reports the result in its answer. Named in the lane, off the router's thread.
            origin.flatMap(Origin::reportsTo).ifPresent(c -> lanes.post(c.key(),
                    () -> send(c, Checkpoints.compact(task, workerName(task)))));
        } else {
            deliver(task, checkpoints.finished(task));
        }
    }

    @Override
    public void workerOffline(WorkerInfo worker) {
        Set<String> conversations = onWorker.remove(worker.id());
        if (conversations == null || worker.local()) {
            return;
        }
        toldOffline.computeIfAbsent(worker.id(), k -> ConcurrentHashMap.newKeySet()).addAll(conversations);
        notice(conversations, "Your machine " + worker.name() + " went offline.");
    }

    @Override
    public void workerOnline(WorkerInfo worker) {
        if (worker.local()) {
            return;
        }
        Set<String> conversations = new HashSet<>(Optional.ofNullable(toldOffline.remove(worker.id())).orElse(Set.of()));
        conversations.addAll(waitingForAny);
        waitingForAny.clear();
        notice(conversations, "Your machine " + worker.name() + " is back.");
    }

    private void notice(Set<String> conversations, String text) {
        for (String key : conversations) {
            Conversation.fromKey(key).ifPresent(c -> lanes.post(key, () -> send(c, new OutgoingMessage.Text(text))));
        }
    }

    /** To the conversation that hears what comes of the call, if there is one (the API's and MCP's calls have none). */
    private void deliver(Task task, List<OutgoingMessage> messages) {
        Origins.of(task).flatMap(Origin::reportsTo)
                .ifPresent(c -> lanes.post(c.key(), () -> messages.forEach(m -> send(c, m))));
    }

    private String workerName(Task task) {
        return task.leaseOwner().flatMap(id -> router.workers().stream().filter(w -> w.id().equals(id)).findFirst())
                .map(WorkerInfo::name).orElse("");
    }

    /** The keys of the conversations of every channel, most recently active first, at most {@code limit}. */
    public List<String> recentConversations(int limit) {
        return store.conversations("", limit);
    }

    /** The last {@code limit} messages of {@code conversation}, oldest first, e.g. for a console reloaded. */
    public List<ConversationEntry> history(Conversation conversation, int limit) {
        return store.recent(conversation.key(), limit);
    }

    /** Sends {@code message} and keeps it; returns what was kept (nothing for passing progress). */
    private ConversationEntry send(Conversation conversation, OutgoingMessage message) {
        ConversationEntry kept = remember(conversation, message);
        Channel channel = channels.get(conversation.channel());
        if (channel == null) {
            // Tasks from the API (session "api") or from a channel that is gone have nowhere to report.
            return kept;
        }
        try {
            channel.send(conversation, message);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Channel " + channel.name() + " could not send to " + conversation.key(), e);
        }
        return kept;
    }

    /** Keeps what the assistant said, except passing progress and the unfinished parts of a streamed reply. */
    private ConversationEntry remember(Conversation conversation, OutgoingMessage message) {
        String kind = switch (message) {
            case OutgoingMessage.Progress p -> null;
            case OutgoingMessage.Streamed s -> s.done() ? "streamed" : null;
            case OutgoingMessage.Text t -> "text";
            case OutgoingMessage.Result r -> "result";
            case OutgoingMessage.Image i -> "image";
            case OutgoingMessage.Prompt p -> "prompt";
            case OutgoingMessage.PromptClosed c -> null;
        };
        if (kind == null) {
            return null;
        }
        Optional<String> taskId = message instanceof OutgoingMessage.Result r ? Optional.of(r.taskId()) : Optional.empty();
        boolean ok = !(message instanceof OutgoingMessage.Result r) || r.ok();
        ConversationEntry entry = new ConversationEntry(conversation.key(), false, kind, message.text(), ok, taskId,
                clock.instant());
        keep(entry);
        return entry;
    }

    /** A store that fails costs the history, never the conversation. */
    private void keep(ConversationEntry entry) {
        try {
            store.append(entry);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not keep a message of " + entry.conversation() + "; the conversation goes on", e);
        }
    }

    @Override
    public void close() {
        channels.values().forEach(c -> {
            try {
                c.close();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Channel " + c.name() + " did not close cleanly", e);
            }
        });
        turns.close(Duration.ZERO);
        // Checkpoints already on their way still go out.
        lanes.close(Duration.ofSeconds(2));
    }
}
