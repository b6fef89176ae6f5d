package dev.efferent.brain.chat;

import dev.efferent.channel.spi.Channel;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.Inbox;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.queue.Task;
import dev.efferent.router.Router;
import dev.efferent.router.RouterListener;
import dev.efferent.router.WorkerInfo;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The assistant's side of every conversation: commands in, replies out, and the checkpoints of the tasks a
 * conversation started, in the order they happened. Also tells conversations when a machine their tasks run on
 * goes offline or comes back.
 */
public final class ChatService implements Inbox, RouterListener, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ChatService.class.getName());

    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    private final CommandHandler commands;
    private final Checkpoints checkpoints;
    private final Duration progressInterval;
    private final Clock clock;
    /** Last percent reported by each running task (for /tasks and the console). */
    private final Map<String, Instant> lastProgressSent = new ConcurrentHashMap<>();
    /** Conversations with tasks on a worker, by worker id, and those told it went offline. */
    private final Map<String, Set<String>> onWorker = new ConcurrentHashMap<>();
    private final Map<String, Set<String>> toldOffline = new ConcurrentHashMap<>();
    /** Conversation keys waiting for some worker because their task was queued while none was online. */
    private final Set<String> waitingForAny = ConcurrentHashMap.newKeySet();
    /** Messages of one conversation are handled, and its replies sent, one at a time. */
    private final ConversationLocks conversationLocks = new ConversationLocks();
    /** One thread sends checkpoints, in order; never the router's thread, which must not wait on a chat. */
    private final ExecutorService deliveries = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().name("efferent-chat-deliveries").daemon().factory());
    private final ExecutorService handlers = Executors.newVirtualThreadPerTaskExecutor();

    /**
     * A chat service.
     *
     * @param router           runs what people ask for
     * @param freeText         answers text that is not a command
     * @param maxChars         longest output shown in one message
     * @param progressInterval at most one progress message per task this often
     * @param clock            for ages and rate limits
     */
    public ChatService(Router router, FreeText freeText, int maxChars, Duration progressInterval, Clock clock) {
        this.commands = new CommandHandler(router, freeText, maxChars, clock);
        this.checkpoints = new Checkpoints(maxChars);
        this.progressInterval = progressInterval;
        this.clock = clock;
        router.addListener(this);
    }

    /** Adds a channel and starts it. */
    public void add(Channel channel) {
        channels.put(channel.name(), channel);
        channel.start(this);
    }

    @Override
    public void receive(IncomingMessage message) {
        handlers.execute(() -> {
            Conversation c = message.conversation();
            LOG.log(Level.DEBUG, "{0} ({1}): {2}", c.key(), message.sender(), message.text());
            // Hold the conversation while the command runs and its reply goes out, so a fast task's
            // checkpoint cannot overtake the reply that announced it.
            conversationLocks.run(c.key(), () -> {
                List<OutgoingMessage> replies;
                try {
                    replies = commands.handle(message);
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "Command failed in " + c.key() + ": " + message.text(), e);
                    replies = List.of(new OutgoingMessage.Text("That failed inside the brain: " + e.getMessage()));
                }
                replies.forEach(r -> send(c, r));
            });
        });
    }

    @Override
    public void submitted(Task task, boolean offline) {
        if (offline) {
            task.requester().ifPresent(r -> {
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
        task.requester().ifPresent(r -> onWorker.computeIfAbsent(workerId, k -> ConcurrentHashMap.newKeySet()).add(r));
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
        deliver(task, checkpoints.finished(task));
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
            Conversation.fromKey(key).ifPresent(c -> deliveries.execute(() -> {
                conversationLocks.run(key, () -> send(c, new OutgoingMessage.Text(text)));
            }));
        }
    }

    private void deliver(Task task, List<OutgoingMessage> messages) {
        Optional<Conversation> to = task.requester().flatMap(Conversation::fromKey);
        to.ifPresent(c -> deliveries.execute(() -> {
            conversationLocks.run(c.key(), () -> messages.forEach(m -> send(c, m)));
        }));
    }

    private void send(Conversation conversation, OutgoingMessage message) {
        Channel channel = channels.get(conversation.channel());
        if (channel == null) {
            // Tasks from the API (requester "api") or from a channel that is gone have nowhere to report.
            return;
        }
        try {
            channel.send(conversation, message);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Channel " + channel.name() + " could not send to " + conversation.key(), e);
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
        handlers.shutdownNow();
        deliveries.shutdown();
        try {
            deliveries.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
