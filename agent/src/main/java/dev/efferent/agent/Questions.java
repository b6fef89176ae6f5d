package dev.efferent.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.approvals.Approvals;
import dev.efferent.approvals.policy.Decision;
import dev.efferent.approvals.policy.Verdict;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.core.tools.DurationText;
import dev.efferent.queue.Task;
import dev.efferent.router.Router;
import dev.efferent.router.RouterException;
import dev.efferent.router.WorkerInfo;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The conversation about a call held for a yes: the question (what will run, where, why it asks), the answers a
 * person types ({@code /approve}, {@code /deny}) and the list of what waits ({@code /approvals}).
 */
final class Questions {
    private final Router router;
    private final Approvals approvals;
    private final ObjectMapper json;
    private final SubAgents children;

    Questions(Router router, Approvals approvals, ObjectMapper json, SubAgents children) {
        this.router = router;
        this.approvals = approvals;
        this.json = json;
        this.children = children;
    }

    /** The question for a held call: what will run, where, why it asks; allow once, allow always, deny. */
    OutgoingMessage.Prompt prompt(Task task, Verdict verdict) {
        String where = task.targetWorker().flatMap(id -> router.workers().stream().filter(w -> w.id().equals(id))
                .findFirst().map(WorkerInfo::name)).map(n -> " on " + n).orElse("");
        String id = task.id();
        return new OutgoingMessage.Prompt(id, "Allow " + task.tool() + where + "? " + shown(task) + "\nIt asks "
                + "because: " + verdict.why() + ". No answer in " + DurationText.words(approvals.timeout())
                + (approvals.fallback() == Decision.ALLOW ? " means yes" : " means no")
                + " (task " + id + ").", List.of(
                new OutgoingMessage.Prompt.Choice("Allow once", "/approve " + id + " once"),
                new OutgoingMessage.Prompt.Choice("Allow always", "/approve " + id + " always"),
                new OutgoingMessage.Prompt.Choice("Deny", "/deny " + id)));
    }

    /** What will run, as a person reads it: the command or path, else the arguments. */
    private String shown(Task task) {
        String params = task.params();
        try {
            var args = json.readTree(params);
            if (args.path("command").isTextual()) {
                return "Command: " + args.path("command").asText()
                        + (args.path("cwd").isTextual() ? " (in " + args.path("cwd").asText() + ")" : "");
            }
            if (args.path("path").isTextual()) {
                return "Path: " + args.path("path").asText() + (args.path("content").isTextual()
                        ? " (" + args.path("content").asText().length() + " characters to write)" : "");
            }
        } catch (JsonProcessingException e) {
            // Shown as stored.
        }
        return "Arguments: " + (params.length() > 500 ? params.substring(0, 500) + "…" : params);
    }

    /** Who answered, for the record: the conversation, and the person as the channel names them. */
    private static String who(IncomingMessage message) {
        String sender = message.sender().isBlank() ? "" : " (" + message.sender() + ")";
        return message.conversation().key() + sender;
    }

    /** {@code /approve <id> [once|always]} or {@code /deny <id> [reason]}, as {@code message} said it. */
    String answer(String[] args, IncomingMessage message, boolean allow) {
        String key = message.conversation().key();
        String by = who(message);
        if (args.length < 2) {
            return allow ? "Usage: /approve <id> [once|always] (give the task id the question named; /approvals "
                    + "lists them)" : "Usage: /deny <id> [reason] (give the task id the question named; /approvals "
                    + "lists them)";
        }
        String rest = args.length > 2 ? args[2].strip() : "";
        // A sub-agent's question was asked here, in its parent's conversation, which answers for it.
        String participant = router.task(args[1]).flatMap(Task::session)
                .filter(r -> children.childOf(r).map(c -> c.parent().equals(key)).orElse(false)).orElse(key);
        try {
            if (allow) {
                if (!rest.isEmpty() && !rest.equals("once") && !rest.equals("always")) {
                    return "Usage: /approve <id> [once|always]: '" + rest + "' is neither once nor always.";
                }
                return approvals.approve(args[1], by, rest.equals("always"), participant);
            }
            return approvals.deny(args[1], by, rest, participant);
        } catch (RouterException e) {
            return e.getMessage().substring(0, 1).toUpperCase(Locale.ROOT) + e.getMessage().substring(1) + ".";
        }
    }

    /** The calls of conversation {@code key} waiting for an answer, for {@code /approvals}. */
    String pending(String key) {
        List<Task> waiting = new ArrayList<>(approvals.pending(key));
        for (SubAgents.Child c : children.of(key)) {
            if (c.state() == SubAgents.State.RUNNING) {
                waiting.addAll(approvals.pending(c.conversation().key()));
            }
        }
        if (waiting.isEmpty()) {
            return "No call is waiting for your approval.";
        }
        StringBuilder s = new StringBuilder("Waiting for your approval:");
        for (Task t : waiting) {
            s.append("\n").append(t.id()).append("  ").append(t.tool()).append("  ").append(shown(t));
        }
        return s.append("\nAnswer with /approve <id> [once|always] or /deny <id> [reason].").toString();
    }
}
