package dev.efferent.scheduler;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.assistant.AssistantHost;
import dev.efferent.calls.Gateway;
import dev.efferent.calls.Origin;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.core.tools.DurationText;
import dev.efferent.router.Router;
import dev.efferent.router.RouterException;
import dev.efferent.router.TaskRequest;
import dev.efferent.store.Store;

import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Schedules and reminders: each fires a reminder, a prompt for the assistant, or a tool call, once, at an interval
 * or by cron, in the conversation it belongs to. Schedules are kept in the store (with PostgreSQL, in the database),
 * so they outlive the brain; several brains over one database fire each time once: the brain that moves a
 * schedule's next fire time on (a compare-and-set on its record) is the one that fires, and a tool call is also a
 * task whose idempotency key is the schedule's id and fire time. Fires that fell while no brain was running follow
 * the schedule's {@link Schedule.Missed} policy.
 */
public final class Scheduler implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Scheduler.class.getName());
    /** The shortest interval: anything faster is a loop, not a schedule. */
    static final Duration MIN_INTERVAL = Duration.ofSeconds(1);
    /** The shortest interval of a prompt, which costs a model turn each time. */
    static final Duration MIN_PROMPT_INTERVAL = Duration.ofMinutes(1);

    private final Gateway gateway;
    private final Router router;
    private final ScheduleStore kept;
    private final SchedulerSettings settings;
    private final Clock clock;
    private final ObjectMapper json;
    private final Schedules schedules;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("efferent-scheduler").daemon().factory());
    /** The next pass; touched on the timer's thread only. */
    private ScheduledFuture<?> planned;
    private volatile AssistantHost host;
    /** Whether the timer runs the passes (tests without it call {@link #runDue} themselves). */
    private volatile boolean timed;

    /**
     * A scheduler.
     *
     * @param router   runs the tool calls schedules fire
     * @param store    where schedules are kept (namespace {@code scheduler.schedules})
     * @param settings the time zone and limits
     * @param clock    what time it is
     */
    public Scheduler(Gateway gateway, Store store, SchedulerSettings settings, Clock clock) {
        this.gateway = gateway;
        this.router = gateway.router();
        this.settings = settings;
        this.clock = clock;
        this.json = new ObjectMapper();
        this.schedules = new Schedules(json);
        this.kept = new ScheduleStore(store, schedules);
    }

    /** Starts firing: reminders and prompts reach conversations through {@code host}. Its chat face calls it. */
    public void start(AssistantHost host) {
        attach(host);
        timed = true;
        timer.execute(this::pass);
    }

    /** Lets fires reach conversations through {@code host}, without the timer (tests drive {@link #runDue}). */
    void attach(AssistantHost host) {
        this.host = host;
    }

    /** How schedules are written and read, for the chat face. */
    Schedules schedules() {
        return schedules;
    }

    ObjectMapper json() {
        return json;
    }

    Clock clock() {
        return clock;
    }

    /** One line for people: when, what, the next fire and the runs so far. */
    String describe(Schedule s) {
        ZoneId zone = settings.zone();
        return s.when().describe(zone) + ", " + s.action().describe()
                + s.next().filter(n -> !(s.when() instanceof When.Once)).map(n -> "; next " + Schedules.show(n, zone))
                .orElse("")
                + (s.runs() > 0 ? " (" + s.runs() + " run" + (s.runs() == 1 ? "" : "s") + " so far)" : "")
                + s.maxRuns().map(m -> ", at most " + m + " runs").orElse("");
    }

    /** The settings in use. */
    public SchedulerSettings settings() {
        return settings;
    }

    /**
     * Makes a schedule in {@code conversation} from a request (the REST body; tool calls allowed).
     *
     * @throws IllegalArgumentException saying what in the request is wrong
     */
    public Schedule create(String conversation, JsonNode request) {
        return create(conversation, schedules.request(request, settings.zone(), clock.instant(), true));
    }

    Schedule create(String conversation, Schedules.Request r) {
        if (r.when() instanceof When.Every every && every.period().compareTo(MIN_INTERVAL) < 0) {
            throw new IllegalArgumentException("an interval must be at least 1 second, got " + every.period());
        }
        if (r.when() instanceof When.Every every && r.action() instanceof Schedule.Action.Prompt
                && every.period().compareTo(MIN_PROMPT_INTERVAL) < 0) {
            // Each fire is a model turn: a faster one only piles turns up and spends tokens.
            throw new IllegalArgumentException("a prompt can be scheduled at most once a minute, got every "
                    + DurationText.words(every.period()));
        }
        if (r.action() instanceof Schedule.Action.Call call && call.tool().startsWith("automation_")) {
            throw new IllegalArgumentException("an automation is not a machine's tool: schedule a prompt that asks "
                    + "the assistant to run " + call.tool());
        }
        if (r.action() instanceof Schedule.Action.Call call && router.tools().stream()
                .noneMatch(t -> t.descriptor().name().equals(call.tool()))) {
            throw new IllegalArgumentException("no machine has a tool named '" + call.tool() + "' (yet): /workers "
                    + "and GET /api/v1/tools list the tools there are");
        }
        long here = list(conversation).size();
        if (here >= settings.maxPerConversation()) {
            throw new IllegalArgumentException("this conversation has " + here + " schedules, the most it may have "
                    + "(scheduler.max-per-conversation); remove one with /unschedule <id>");
        }
        Instant now = clock.instant();
        Optional<Instant> first = r.when().next(now).filter(t -> r.until().map(u -> !t.isAfter(u)).orElse(true));
        if (first.isEmpty()) {
            throw new IllegalArgumentException("it would never fire" + r.until().map(u -> ": its first time is after "
                    + "'until' (" + Schedules.show(u, settings.zone()) + ")").orElse(""));
        }
        Schedule s = new Schedule(kept.newId(), conversation, r.when(), r.action(),
                r.missed().orElse(Schedule.Missed.RUN_ONCE), r.maxRuns(), r.until(), 0, first, now, List.of());
        kept.add(s);
        LOG.log(Level.INFO, "Schedule {0} in {1}: {2}, {3}; first at {4}", s.id(), conversation,
                s.when().describe(settings.zone()), s.action().describe(), first.get());
        wake();
        return s;
    }

    /**
     * {@code s} as JSON, for the REST API: its stored form ({@code id}, {@code conversation}, {@code when},
     * {@code action}, {@code missed}, {@code maxRuns}, {@code until}, {@code runs}, {@code next}, {@code created})
     * and {@code description}, in words.
     */
    public ObjectNode toJson(Schedule s) {
        try {
            ObjectNode o = (ObjectNode) json.readTree(schedules.write(s));
            return o.put("description", describe(s));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a schedule written as JSON cannot be read back", e);
        }
    }

    /** All the schedules, soonest first. */
    public List<Schedule> list() {
        return list(s -> true);
    }

    /** The schedules of {@code conversation}, soonest first. */
    public List<Schedule> list(String conversation) {
        return list(s -> s.conversation().equals(conversation));
    }

    private List<Schedule> list(Predicate<Schedule> wanted) {
        List<Schedule> found = new ArrayList<>();
        for (Map.Entry<String, String> e : kept.all().entrySet()) {
            kept.read(e.getKey(), e.getValue()).filter(s -> s.next().isPresent()).filter(wanted).ifPresent(found::add);
        }
        found.sort(Comparator.comparing(s -> s.next().orElseThrow()));
        return found;
    }

    /** The schedule {@code id}, if it is there. */
    public Optional<Schedule> get(String id) {
        return kept.get(id).filter(s -> s.next().isPresent());
    }

    /** Removes schedule {@code id}: it fires no more. Whether it was there. */
    public boolean delete(String id) {
        boolean removed = kept.remove(id);
        if (removed) {
            LOG.log(Level.INFO, "Schedule {0} removed", id);
        }
        return removed;
    }

    /** A pass on the timer's thread: fires what is due, then plans the next pass. */
    private void pass() {
        Optional<Instant> soonest = Optional.empty();
        try {
            soonest = runDue();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Could not look at the schedules (trying again in "
                    + settings.checkInterval().toMillis() + " ms): " + e.getMessage(), e);
        }
        long delay = settings.checkInterval().toMillis();
        if (soonest.isPresent()) {
            delay = Math.min(delay, Math.max(0, Duration.between(clock.instant(), soonest.get()).toMillis()));
        }
        if (planned != null) {
            planned.cancel(false);
        }
        if (!timer.isShutdown()) {
            planned = timer.schedule(this::pass, delay, TimeUnit.MILLISECONDS);
        }
    }

    /** Wakes the timer to look at the schedules now, e.g. one was just made. */
    private void wake() {
        if (timed && !timer.isShutdown()) {
            timer.execute(this::pass);
        }
    }

    /** Fires every schedule that is due; the soonest time one is due next. */
    Optional<Instant> runDue() {
        Instant now = clock.instant();
        Optional<Instant> soonest = Optional.empty();
        for (Map.Entry<String, String> e : kept.all().entrySet()) {
            Optional<Schedule> read = kept.read(e.getKey(), e.getValue());
            if (read.isEmpty()) {
                continue;
            }
            Schedule s = read.get();
            if (!s.pending().isEmpty()) {
                // Fires a brain decided on and may not have submitted (it stopped): the same keys again.
                submitPending(e.getKey(), e.getValue(), s);
                continue;
            }
            if (s.next().isEmpty()) {
                // Ended, and the brain that ended it has not removed it yet (or stopped before it could).
                kept.remove(e.getKey());
                continue;
            }
            Instant next = s.next().get();
            if (!next.isAfter(now)) {
                try {
                    fire(e.getKey(), e.getValue(), s, now);
                } catch (RuntimeException x) {
                    LOG.log(Level.WARNING, "Schedule " + s.id() + " could not fire; trying again: " + x.getMessage(), x);
                }
                // Its new next time is seen on the next pass, which comes at once if it is soon.
                next = now.plus(MIN_INTERVAL);
            }
            Instant n = next;
            soonest = Optional.of(soonest.filter(x -> x.isBefore(n)).orElse(n));
        }
        return soonest;
    }

    private void fire(String key, String data, Schedule s, Instant now) {
        List<Instant> missed = new ArrayList<>();
        List<Instant> onTime = new ArrayList<>();
        Optional<Instant> t = s.next();
        Instant lateBefore = now.minus(settings.missedAfter());
        // Bounded: a one-second schedule whose brain was down a day has 86,400 fires that are due.
        while (t.isPresent() && !t.get().isAfter(now) && missed.size() + onTime.size() <= settings.maxCatchUp()) {
            (t.get().isBefore(lateBefore) ? missed : onTime).add(t.get());
            t = s.when().next(t.get());
        }
        List<Instant> run = new ArrayList<>();
        if (!missed.isEmpty()) {
            switch (s.missed()) {
                case SKIP -> { }
                case RUN_ONCE -> {
                    if (onTime.isEmpty()) {
                        // The first missed time keys the fire: every brain that looks finds the same one.
                        run.add(missed.getFirst());
                    }
                }
                case RUN_ALL -> run.addAll(missed.subList(0, Math.min(missed.size(), settings.maxCatchUp())));
            }
            LOG.log(Level.INFO, "Schedule {0} missed {1} fire(s) while no brain was running (the first at {2}); "
                    + "missed: {3}, so {4} run", s.id(), missed.size(), missed.getFirst(), s.missed().word(),
                    run.size());
        }
        run.addAll(onTime);
        run.removeIf(x -> s.until().map(x::isAfter).orElse(false));
        int left = s.maxRuns().map(m -> Math.max(0, m - s.runs())).orElse(Integer.MAX_VALUE);
        if (run.size() > left) {
            run = new ArrayList<>(run.subList(0, left));
        }
        Optional<Instant> next = s.when().next(now).filter(x -> s.until().map(u -> !x.isAfter(u)).orElse(true));
        if (s.runs() + run.size() >= s.maxRuns().orElse(Integer.MAX_VALUE)) {
            next = Optional.empty();
        }
        boolean call = s.action() instanceof Schedule.Action.Call;
        // Decided once, by the brain whose compare-and-set wins; the others see the schedule moved on.
        List<Instant> pending = call ? run : List.of();
        Schedule after = next.isPresent() ? s.advanced(run.size(), next.get(), pending) : s.ended(run.size(), pending);
        Optional<String> moved = kept.replace(key, data, after);
        if (moved.isEmpty()) {
            return;
        }
        String written = moved.get();
        if (call) {
            // Kept as pending until submitted, each under a key any brain would use: a brain that stops before
            // submitting them leaves them for the next pass, which gives the same tasks back where some went in.
            submitPending(key, written, after);
        } else {
            // A reminder or prompt has no task to make it once: it goes out from the brain that moved on only.
            if (next.isEmpty()) {
                kept.remove(key);
            }
            run.forEach(at -> say(s, at));
        }
        if (next.isEmpty()) {
            LOG.log(Level.INFO, "Schedule {0} ended after {1} fire(s)", s.id(), after.runs());
        }
    }

    /** Submits {@code s}'s pending fires, then clears them (or removes the schedule if it has ended). */
    private void submitPending(String key, String data, Schedule s) {
        s.pending().forEach(at -> submit(s, at));
        if (s.next().isEmpty()) {
            kept.remove(key);
        } else {
            kept.replace(key, data, s.advanced(0, s.next().get(), List.of()));
        }
    }

    private void submit(Schedule s, Instant at) {
        Schedule.Action.Call call = (Schedule.Action.Call) s.action();
        TaskRequest request = TaskRequest.of(call.tool(), call.params().deepCopy());
        if (call.worker().isPresent()) {
            request = request.onWorker(call.worker().get());
        }
        Optional<Conversation> in = Conversation.fromKey(s.conversation());
        if (in.isEmpty()) {
            LOG.log(Level.WARNING, "Schedule {0} fired, but {1} is not a conversation; its call is not made", s.id(),
                    s.conversation());
            return;
        }
        try {
            gateway.submit(new Origin.Schedule(in.get(), s.id(), at), request);
        } catch (RouterException e) {
            if (e.kind() != RouterException.Kind.BAD_REQUEST && e.kind() != RouterException.Kind.NOT_FOUND) {
                throw e;
            }
            // Refused for good (a tool or machine that is gone): said, and the schedule goes on.
            post(s, "Schedule " + s.id() + " could not run " + call.tool() + ": " + e.getMessage() + ".");
        }
    }

    private void say(Schedule s, Instant at) {
        LOG.log(Level.DEBUG, "Schedule {0} fires for {1}", s.id(), at);
        switch (s.action()) {
            case Schedule.Action.Remind r -> post(s, "⏰ " + r.text());
            case Schedule.Action.Prompt p -> conversation(s).ifPresent(c -> {
                post(s, "⏰ Scheduled (" + s.id() + "): " + p.text());
                host.prompt(new IncomingMessage(c, "schedule " + s.id(), p.text()));
            });
            case Schedule.Action.Call c -> throw new IllegalStateException("a call is submitted, not said");
        }
    }

    private void post(Schedule s, String text) {
        conversation(s).ifPresent(c -> host.replies(c).send(new OutgoingMessage.Text(text)));
    }

    private Optional<Conversation> conversation(Schedule s) {
        Optional<Conversation> c = Conversation.fromKey(s.conversation());
        if (c.isEmpty() || host == null) {
            LOG.log(Level.WARNING, "Schedule {0} fired, but its conversation {1} cannot be reached", s.id(),
                    s.conversation());
        }
        return host == null ? Optional.empty() : c;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
