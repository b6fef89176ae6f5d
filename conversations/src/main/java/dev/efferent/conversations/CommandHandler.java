package dev.efferent.conversations;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.assistant.Assistant;
import dev.efferent.assistant.Replies;
import dev.efferent.calls.Gateway;
import dev.efferent.calls.Origin;
import dev.efferent.calls.Outcome;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.queue.Progress;
import dev.efferent.queue.QueueException;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskStatus;
import dev.efferent.router.Router;
import dev.efferent.router.RouterException;
import dev.efferent.router.Submission;
import dev.efferent.router.TaskRequest;
import dev.efferent.router.WorkerInfo;
import dev.efferent.store.StoreException;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The commands every channel understands. Each answer is a list of messages; an error answers with what went
 * wrong and the command's usage, never a stack trace.
 */
public final class CommandHandler {
    /** The module's one JSON mapper (thread-safe once configured). */
    static final ObjectMapper JSON = new ObjectMapper();
    static final String HELP = """
            Commands:
            /help — this list
            /tasks (or /queue) — queued and running tasks, with age and progress
            /cancel <id> — cancel a queued or running task
            /workers (or /nodes) — your machines: online state, last heartbeat, running tasks
            /worker <name> — run this conversation's tasks on that machine when it can
            /run <tool> <json> — run any tool, e.g. /run stat {"path": "notes.txt"}
            /shell <command> — run a shell command, e.g. /shell git status
            /read <path> — show a file
            /ls [path] — list a directory
            /result <id> — the whole output of a finished task
            Files and commands stay inside each machine's allowed roots (tools.roots, --root; your home unless set),
            less the places that hold credentials (tools.shell.hide: ~/.ssh, ~/.aws, ~/.efferent, …): paths are
            relative to the first root, commands run in it, and under the sandbox they can write only there (the
            home's dotfiles stay read-only).""";

    private final Gateway gateway;
    private final Router router;
    private final Assistant assistant;
    private final Clock clock;

    /**
     * A handler.
     *
     * @param router      runs the tasks
     * @param assistant   answers text that is not a command (see {@link #handle})
     * @param clock       for ages
     */
    public CommandHandler(Gateway gateway, Assistant assistant, Clock clock) {
        this.gateway = gateway;
        this.router = gateway.router();
        this.assistant = assistant;
        this.clock = clock;
    }

    /** Whether {@code text} is a command (it starts with a slash). */
    static boolean isCommand(String text) {
        return text.strip().startsWith("/");
    }

    /**
     * The replies to {@code message}. For text that is not a command, what the assistant answers before it
     * returns (the conversation service lets it answer later too).
     */
    public List<OutgoingMessage> handle(IncomingMessage message) {
        return handle(message, id -> {
        });
    }

    /** {@link #handle(IncomingMessage)}, telling {@code started} the id of each task the message started. */
    public List<OutgoingMessage> handle(IncomingMessage message, Consumer<String> started) {
        String text = message.text().strip();
        if (!isCommand(text)) {
            if (text.isEmpty()) {
                return List.of();
            }
            List<OutgoingMessage> answered = new ArrayList<>();
            assistant.onMessage(message, new Replies() {
                @Override
                public void send(OutgoingMessage reply) {
                    answered.add(reply);
                }

                @Override
                public void stream(String appended) {
                    answered.add(new OutgoingMessage.Text(appended));
                }

                @Override
                public void finish() {
                }
            });
            return answered;
        }
        int space = text.indexOf(' ');
        String command = (space < 0 ? text : text.substring(0, space)).toLowerCase(Locale.ROOT);
        String args = space < 0 ? "" : text.substring(space + 1).strip();
        Conversation conversation = message.conversation();
        try {
            return switch (command) {
                case "/help", "/start" -> say(assistant.help().isEmpty() ? HELP
                        : HELP + "\n" + String.join("\n", assistant.help()));
                case "/tasks", "/queue" -> say(tasks());
                case "/cancel" -> cancel(args);
                // "/workers revoke laptop" and the like belong to whoever owns them (pairing).
                case "/workers", "/nodes" -> args.isEmpty() ? say(workers(conversation))
                        : assistant.command(message).orElseGet(() -> usage(command, "'" + args.split("\\s+")[0]
                                + "' is not something " + command + " does; send " + command + " alone for your "
                                + "machines"));
                case "/worker" -> worker(conversation, args);
                // An automation is a tool of the brain itself: the assistant runs it.
                case "/run" -> args.startsWith("automation_") ? assistant.command(message).orElseGet(() -> say(
                        "Unknown automation " + args.split("\\s+")[0] + ". Send /automations for the list."))
                        : runTool(conversation, text, started);
                case "/shell", "/read", "/ls" -> runTool(conversation, text, started);
                case "/result" -> result(args);
                default -> assistant.command(message)
                        .orElseGet(() -> say("Unknown command " + command + ". Send /help for the list."));
            };
        } catch (RouterException e) {
            return say(e.getMessage().substring(0, 1).toUpperCase(Locale.ROOT) + e.getMessage().substring(1) + ".");
        } catch (QueueException e) {
            return say("The task queue is unavailable right now: " + e.getMessage());
        } catch (StoreException e) {
            return say("What the brain keeps is unavailable right now: " + e.getMessage());
        }
    }

    private List<OutgoingMessage> runTool(Conversation conversation, String text, Consumer<String> started) {
        return switch (ToolCommands.parse(text).orElseThrow()) {
            case ToolCommands.Parsed.Call call -> submit(conversation, call.tool(), call.params(), started);
            case ToolCommands.Parsed.Usage u -> say(u.text());
        };
    }

    private List<OutgoingMessage> submit(Conversation conversation, String tool, ObjectNode params,
                                         Consumer<String> started) {
        Submission s = gateway.submit(new Origin.Person(conversation), TaskRequest.of(tool, params));
        if (s.outcome() != Submission.Outcome.DUPLICATE) {
            started.accept(s.task().id());
        }
        return say(Wording.of(s));
    }

    private List<OutgoingMessage> cancel(String id) {
        if (id.isEmpty() || id.contains(" ")) {
            return usage("/cancel <id>", "give one task id; /tasks lists them");
        }
        Task t = router.cancel(id, "cancelled by user");
        return say("Cancelled task " + t.id() + " (" + t.tool() + ").");
    }

    private List<OutgoingMessage> worker(Conversation conversation, String name) {
        if (name.isEmpty() || name.contains(" ")) {
            return usage("/worker <name>", "give one worker name; /workers lists them");
        }
        WorkerInfo w = router.setActiveWorker(conversation.key(), name);
        return say(w.name() + " is now the active worker for this conversation"
                + (w.online() ? "." : "; it is offline, so tasks will wait for it."));
    }

    private List<OutgoingMessage> result(String id) {
        if (id.isEmpty() || id.contains(" ")) {
            return usage("/result <id>", "give one task id");
        }
        Task t = router.task(id).orElseThrow(() -> new RouterException(RouterException.Kind.NOT_FOUND,
                "no task with id '" + id + "'"));
        if (!t.status().isFinished()) {
            return say("Task " + id + " is still " + t.status().name().toLowerCase(Locale.ROOT) + ".");
        }
        // Finished, so it has an outcome; one without a reason shows as having no output.
        String output = switch (Outcome.of(t).orElseThrow()) {
            case Outcome.Completed c -> c.result().text();
            case Outcome.Failed f -> t.error().orElse("");
            case Outcome.Cancelled c -> t.error().orElse("");
        };
        return say(output.isBlank() ? "(no output)" : output);
    }

    private String tasks() {
        List<Task> tasks = router.tasks(EnumSet.of(TaskStatus.AWAITING_APPROVAL, TaskStatus.QUEUED, TaskStatus.CLAIMED,
                TaskStatus.RUNNING), 50);
        if (tasks.isEmpty()) {
            return "No tasks are queued or running.";
        }
        Function<String, String> names = names();
        Instant now = clock.instant();
        return tasks.stream().map(t -> {
            String state = switch (t.status()) {
                case RUNNING -> "running " + router.progress(t).map(Progress::percent).orElse(0) + "% on "
                        + t.leaseOwner().map(names).orElse("?");
                case CLAIMED -> "starting on " + t.leaseOwner().map(names).orElse("?");
                case AWAITING_APPROVAL -> "waiting for your approval";
                default -> "queued" + t.targetWorker().map(w -> " for " + names.apply(w)).orElse("");
            };
            return t.id() + "  " + t.tool() + "  " + state + ", " + Checkpoints.human(Duration.between(t.createdAt(), now))
                    + " old";
        }).collect(Collectors.joining("\n", "Tasks:\n", ""));
    }

    /**
     * Every machine, the brain's own process first: tasks can say "on brain", so the brain is listed wherever
     * machines are (also in the console and the REST API).
     */
    private String workers(Conversation conversation) {
        List<WorkerInfo> all = router.workers();
        boolean hands = router.settings().handsEnabled();
        Optional<String> active = router.activeWorker(conversation.key());
        Instant now = clock.instant();
        String list = all.stream().sorted(Comparator.comparing(w -> !w.local()))
                .map(w -> w.local()
                        ? "● " + w.name() + "  this server: runs " + (hands ? "the brain's own tools"
                        : "every tool (single-machine mode)") + ", " + w.runningTasks() + " running"
                        : (w.online() ? "● " : "○ ") + w.name() + "  "
                        + (w.online() ? "online, last heartbeat " + Checkpoints.human(Duration.between(w.lastHeartbeat(),
                        now)) + " ago, " + w.runningTasks() + " running" : "offline, last seen "
                        + Checkpoints.human(Duration.between(w.lastHeartbeat(), now)) + " ago")
                        + (active.map(w.id()::equals).orElse(false) ? "  (active)" : ""))
                .collect(Collectors.joining("\n", "Workers:\n", ""));
        if (hands && all.stream().allMatch(WorkerInfo::local)) {
            list += "\nNo other machine has joined yet: /pair gives a one-time code and the command to run on it.";
        }
        return list;
    }

    private Function<String, String> names() {
        Map<String, String> names = router.workers().stream()
                .collect(Collectors.toMap(WorkerInfo::id, WorkerInfo::name, (a, b) -> a));
        return id -> names.getOrDefault(id, id);
    }

    private static List<OutgoingMessage> say(String text) {
        return List.of(new OutgoingMessage.Text(text));
    }

    private static List<OutgoingMessage> usage(String usage, String problem) {
        return say("Usage: " + usage + " — " + problem + ".");
    }
}
