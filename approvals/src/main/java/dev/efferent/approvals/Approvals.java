package dev.efferent.approvals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.approvals.policy.Call;
import dev.efferent.approvals.policy.Decision;
import dev.efferent.approvals.policy.Policy;
import dev.efferent.approvals.policy.PolicyException;
import dev.efferent.approvals.policy.Rule;
import dev.efferent.approvals.policy.Verdict;
import dev.efferent.core.tools.DurationText;
import dev.efferent.queue.Task;
import dev.efferent.queue.TaskStatus;
import dev.efferent.router.Router;
import dev.efferent.router.RouterException;
import dev.efferent.router.Stores;
import dev.efferent.router.Submission;
import dev.efferent.store.Codec;
import dev.efferent.store.Namespace;
import dev.efferent.store.Space;
import dev.efferent.store.Store;
import dev.efferent.tools.spi.Risk;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.regex.Pattern;

/**
 * The calls held for a person's yes: the policy that decides which, the answers (allow once, allow always, deny),
 * the timeout and its fallback, and a record of each ask, answer and expiry kept with the task. The rules a person
 * adds with "allow always" are kept in the store too ({@code approvals.rules}), so they outlive a restart where the
 * queue does; the record of each task's approval is its log in {@code approvals.audit}.
 */
public final class Approvals implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Approvals.class.getName());
    private static final String OWNER = "efferent.approvals";
    /** The one log of {@code approvals.rules}: each rule added, as its text. */
    private static final String ADDED_RULES = "added";

    private final Router router;
    private final BiFunction<String, JsonNode, Risk> judge;
    private final List<Answered> answeredListeners = new CopyOnWriteArrayList<>();
    private final ApprovalSettings settings;
    private final Space<JsonNode> audits;
    private final Space<String> rules;
    private final Clock clock;
    private final ObjectMapper json = new ObjectMapper();
    private final AtomicReference<Policy> policy;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("efferent-approvals").daemon().factory());

    /**
     * @param router   holds, approves and cancels the tasks
     * @param settings the configured policy, the timeout and the fallback
     * @param store    where the record of each approval and the rules added by "allow always" are kept
     * @param clock    for the timeout
     */
    public Approvals(Router router, ApprovalSettings settings, Store store, Clock clock) {
        this(router, settings, store, clock, (tool, params) -> Risk.UNJUDGED);
    }

    /**
     * Approvals that also ask each tool how risky a call is ({@code judge}: the brain's own copies of the tools).
     */
    public Approvals(Router router, ApprovalSettings settings, Store store, Clock clock,
                     BiFunction<String, JsonNode, Risk> judge) {
        this.judge = judge;
        this.router = router;
        this.settings = settings;
        this.audits = store.claim(new Namespace<>("approvals.audit", Stores.json()), OWNER);
        this.rules = store.claim(new Namespace<>("approvals.rules", Codec.text()), OWNER);
        this.clock = clock;
        this.policy = new AtomicReference<>(withAddedRules());
        long every = Math.max(500, Math.min(30_000, settings.timeout().toMillis() / 4));
        timer.scheduleWithFixedDelay(this::expire, every, every, TimeUnit.MILLISECONDS);
    }

    /** The configured rules and those people added with "allow always" (here or on another brain of the database). */
    private Policy withAddedRules() {
        Policy p = settings.policy();
        Set<String> seen = new HashSet<>();
        for (String added : rules.tail(ADDED_RULES, 1_000)) {
            if (!seen.add(added)) {
                continue;
            }
            try {
                p = p.with(Rule.parse(added));
            } catch (PolicyException e) {
                LOG.log(Level.WARNING, "A rule added by allow always cannot be read and is left out: {0}", e.getMessage());
            }
        }
        return p;
    }

    /** Hears that a held call was answered, whichever way: a person here or over REST, or its timeout. */
    @FunctionalInterface
    public interface Answered {
        /** {@code task} was answered; {@code said} says how, e.g. {@code allowed once by console:abc}. */
        void answered(Task task, String said);
    }

    /** Adds a listener for answers, e.g. to take a question's buttons away wherever it was shown. */
    public void onAnswered(Answered listener) {
        answeredListeners.add(listener);
    }

    private void tell(Task task, String said) {
        for (Answered l : answeredListeners) {
            try {
                l.answered(task, said);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "A listener failed to hear that task " + task.id() + " was answered", e);
            }
        }
    }

    /** What an unanswered call gets. */
    public Decision fallback() {
        return settings.fallback();
    }

    /** The policy now: the configured rules and those added since. */
    public Policy policy() {
        return policy.get();
    }

    /** What the policy says about {@code call}. */
    public Verdict decide(Call call) {
        return policy.get().decide(call.withRisk(judge.apply(call.tool(), call.params())));
    }

    /** How long a held call waits for an answer. */
    public Duration timeout() {
        return settings.timeout();
    }

    /** Records that {@code task}, made of {@code call}, was held, and why; "allow always" allows this exact call. */
    public void asked(Task task, Verdict verdict, Call call) {
        record(task.id(), json.createObjectNode().put("event", "asked").put("why", verdict.why())
                .put("call", call.hash()).put("machine", call.machine().orElse("")));
    }

    /**
     * A person allowed {@code taskId} through the REST API: once, or always (a rule for this exact call is added and
     * shown).
     *
     * @param by     who answered: {@code api}
     * @param always whether calls like this one run from now on without asking
     * @return what to tell the person
     * @throws RouterException NOT_FOUND for an unknown task, CONFLICT for one not waiting for approval
     */
    public String approve(String taskId, String by, boolean always) {
        return approved(held(taskId), by, always);
    }

    /**
     * A person allowed {@code taskId} in a conversation: once, or always (a rule for this exact call is added and
     * shown).
     *
     * @param by          who answered: a conversation's key
     * @param always      whether calls like this one run from now on without asking
     * @param participant the conversation the answer came from, which must be the one that started the task
     * @return what to tell the person
     * @throws RouterException NOT_FOUND for an unknown task, CONFLICT for one not waiting for approval or another
     *                         conversation's
     */
    public String approve(String taskId, String by, boolean always, String participant) {
        return approved(held(taskId, participant), by, always);
    }

    private String approved(Task task, String by, boolean always) {
        String taskId = task.id();
        Submission s = router.approve(taskId);
        String added = "";
        if (always) {
            // Only once the approval holds: an answer that came too late adds no rule.
            Rule rule = Rule.parse(alwaysRule(task));
            if (policy.get().rules().stream().noneMatch(r -> r.text().equals(rule.text()))) {
                policy.updateAndGet(p -> p.with(rule));
                rules.append(ADDED_RULES, rule.text(), 1_000);
                LOG.log(Level.INFO, "Approval rule added by {0}: {1}", by, rule.text());
            }
            added = " From now on: " + rule.text() + ".";
        }
        record(taskId, json.createObjectNode().put("event", "approved").put("by", by)
                .put("choice", always ? "always" : "once"));
        tell(task, "Answered: allowed " + (always ? "always" : "once") + " by " + by + ".");
        LOG.log(Level.INFO, "Task {0} ({1}) allowed {2} by {3}", taskId, task.tool(), always ? "always" : "once", by);
        String where = switch (s.outcome()) {
            case RUNNING -> " It is running on " + s.worker().orElse("a worker") + ".";
            case QUEUED_OFFLINE -> " It runs when the machine is back.";
            default -> " It runs when a worker is free.";
        };
        return "Allowed " + task.tool() + " (" + taskId + ")." + where + added;
    }

    /**
     * A person refused {@code taskId} through the REST API: it is cancelled, and whoever waits for it is told why.
     *
     * @return what to tell the person
     */
    public String deny(String taskId, String by, String reason) {
        return denied(held(taskId), by, reason);
    }

    /**
     * A person refused {@code taskId} in the conversation {@code participant}, which must be the one that started
     * it: it is cancelled, and whoever waits for it is told why.
     *
     * @return what to tell the person
     */
    public String deny(String taskId, String by, String reason, String participant) {
        return denied(held(taskId, participant), by, reason);
    }

    private String denied(Task task, String by, String reason) {
        String taskId = task.id();
        String why = "denied by the user" + (reason.isBlank() ? "" : ": " + reason.strip());
        router.deny(taskId, why);
        record(taskId, json.createObjectNode().put("event", "denied").put("by", by).put("reason", reason.strip()));
        tell(task, "Answered: denied by " + by + ".");
        LOG.log(Level.INFO, "Task {0} ({1}) denied by {2}", taskId, task.tool(), by);
        return "Denied " + task.tool() + " (" + taskId + ").";
    }

    /** The tasks waiting for an answer. */
    public List<Task> pending() {
        return router.tasks(Set.of(TaskStatus.AWAITING_APPROVAL), 500).stream().toList();
    }

    /** The tasks of one conversation, its key {@code session}, waiting for an answer. */
    public List<Task> pending(String session) {
        return pending().stream().filter(t -> t.session().equals(Optional.of(session))).toList();
    }

    /** What became of {@code taskId}'s approval, in a line: e.g. {@code approved by console:abc (once)}. */
    public Optional<String> lastWord(String taskId) {
        List<JsonNode> entries = audit(taskId);
        if (entries.isEmpty()) {
            return Optional.empty();
        }
        JsonNode e = entries.getLast();
        return Optional.of(switch (e.path("event").asText()) {
            case "asked" -> "asks: " + e.path("why").asText();
            case "approved" -> "approved by " + e.path("by").asText() + " (" + e.path("choice").asText() + ")";
            case "denied" -> "denied by " + e.path("by").asText()
                    + (e.path("reason").asText("").isBlank() ? "" : ": " + e.path("reason").asText());
            case "expired" -> e.path("why").asText() + "; " + e.path("fallback").asText() + " by default";
            default -> e.path("event").asText();
        });
    }

    /** The record of {@code taskId}'s approval: each ask, answer and expiry, oldest first. */
    public List<JsonNode> audit(String taskId) {
        return new ArrayList<>(audits.tail(taskId, 100));
    }

    /**
     * Applies the fallback at once to a held task no one can be asked about (its conversation cannot show a
     * prompt), so that nothing waits for an answer that cannot come.
     */
    public void noOneToAsk(Task task, String why) {
        LOG.log(Level.WARNING, "Task {0} ({1}) needs approval but {2}: the fallback ({3}) applies at once", task.id(),
                task.tool(), why, settings.fallback().name().toLowerCase(Locale.ROOT));
        fallback(task, why);
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    private Task held(String taskId, String participant) {
        Task task = found(taskId);
        if (!task.session().equals(Optional.of(participant))) {
            // Said the same way as an unknown id: another conversation's tasks are not this one's to see.
            throw new RouterException(RouterException.Kind.NOT_FOUND, "no task with id '" + taskId + "' in this "
                    + "conversation");
        }
        return waiting(task);
    }

    private Task held(String taskId) {
        return waiting(found(taskId));
    }

    private Task found(String taskId) {
        return router.task(taskId).orElseThrow(() -> new RouterException(RouterException.Kind.NOT_FOUND,
                "no task with id '" + taskId + "'"));
    }

    private Task waiting(Task task) {
        String taskId = task.id();
        if (task.status() != TaskStatus.AWAITING_APPROVAL) {
            throw new RouterException(RouterException.Kind.CONFLICT, "task " + taskId + " is not waiting for "
                    + "approval (it is " + task.status().name().toLowerCase(Locale.ROOT) + ")");
        }
        return task;
    }

    /**
     * The rule "allow always" adds: this exact call (tool, arguments, machine), said in words after its hash; for a
     * task held without that record, this exact command, path, or else this tool on this machine.
     */
    private String alwaysRule(Task task) {
        String said = "";
        try {
            JsonNode args = json.readTree(task.params());
            said = args.path("command").isTextual() ? "command: " + args.path("command").asText()
                    : args.path("path").isTextual() ? "path: " + args.path("path").asText() : "";
        } catch (IOException e) {
            // Said without words.
        }
        for (JsonNode entry : audit(task.id())) {
            if (entry.path("event").asText().equals("asked") && entry.path("call").isTextual()) {
                // The machine is in the hash: the rule needs no "on", which a worker's name could not always be.
                return "allow " + task.tool() + " if #" + entry.path("call").asText()
                        + (said.isEmpty() ? "" : " (" + said.replace(")", "").replace("\n", " ") + ")");
            }
        }
        return patternRule(task);
    }

    private String patternRule(Task task) {
        JsonNode params;
        try {
            params = json.readTree(task.params());
        } catch (IOException e) {
            throw new IllegalStateException("task " + task.id() + " has params that are not JSON", e);
        }
        String machine = task.targetWorker().map(w -> " on " + w).orElse("");
        for (String argument : List.of("command", "path")) {
            if (params.path(argument).isTextual()) {
                return "allow " + task.tool() + machine + " if " + argument + "~" + Pattern.quote(
                        params.path(argument).asText());
            }
        }
        return "allow " + task.tool() + machine;
    }

    private void expire() {
        try {
            policy.set(withAddedRules());
            Instant cutoff = clock.instant().minus(settings.timeout());
            for (Task t : router.tasks(Set.of(TaskStatus.AWAITING_APPROVAL), 500)) {
                if (t.createdAt().isBefore(cutoff)) {
                    fallback(t, "no answer in " + DurationText.words(settings.timeout()));
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not check the calls waiting for approval; trying again later", e);
        }
    }

    private void fallback(Task task, String why) {
        try {
            if (settings.fallback() == Decision.ALLOW) {
                router.approve(task.id());
            } else {
                router.deny(task.id(), why + "; denied by default (approvals.fallback)");
            }
            record(task.id(), json.createObjectNode().put("event", "expired").put("why", why)
                    .put("fallback", settings.fallback().name().toLowerCase(Locale.ROOT)));
            tell(task, "Not answered: " + why + "; " + settings.fallback().name().toLowerCase(Locale.ROOT)
                    + " by default.");
        } catch (RouterException e) {
            // Answered meanwhile (here or on another brain): the answer stands, the fallback does nothing.
            LOG.log(Level.INFO, "Task {0} was answered before its fallback applied: {1}", task.id(), e.getMessage());
        }
    }

    private void record(String taskId, ObjectNode entry) {
        entry.put("at", clock.instant().toString());
        try {
            audits.append(taskId, entry, 100);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not keep the record of task " + taskId + "'s approval: " + entry, e);
        }
    }
}
