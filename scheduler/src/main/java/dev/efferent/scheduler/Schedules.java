package dev.efferent.scheduler;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.efferent.conversations.ToolCommands;
import dev.efferent.plugin.Settings;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Schedules written down and read back: the stored form (JSON in records), the request form (the REST body and
 * the {@code schedule} tool's arguments), and times as people write them.
 */
final class Schedules {
    private static final DateTimeFormatter SHOWN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private final ObjectMapper json;

    Schedules(ObjectMapper json) {
        this.json = json;
    }

    /** {@code at} as people read it in {@code zone}: {@code 2026-12-01 09:00:00 Europe/Paris}. */
    static String show(Instant at, ZoneId zone) {
        return SHOWN.format(at.atZone(zone)) + " " + zone.getId();
    }

    /**
     * A time as written: an instant with its offset ({@code 2026-12-01T09:00:00Z}, {@code …+01:00}), a date and
     * time read in {@code zone} ({@code 2026-12-01T09:00}, {@code 2026-12-01 09:00}), or a time of day, the next one
     * after {@code now} ({@code 09:00}).
     *
     * @throws IllegalArgumentException saying which forms are understood
     */
    static Instant time(String text, ZoneId zone, Instant now) {
        Instant at = parseTime(text, zone, now);
        if (at.isAfter(now.plus(LONGEST))) {
            throw new IllegalArgumentException(show(at, zone) + " is more than ten years away");
        }
        return at;
    }

    private static Instant parseTime(String text, ZoneId zone, Instant now) {
        String t = text.strip().replace(' ', 'T');
        try {
            return OffsetDateTime.parse(t).toInstant();
        } catch (DateTimeException e) {
            // Not with an offset: the other forms follow.
        }
        try {
            return LocalDateTime.parse(t).atZone(zone).toInstant();
        } catch (DateTimeException e) {
            // Not a local date and time.
        }
        try {
            // 9:00 is 09:00.
            LocalTime time = LocalTime.parse(text.strip().matches("\\d:\\d{2}(:\\d{2})?") ? "0" + text.strip()
                    : text.strip());
            ZonedDateTime today = now.atZone(zone).with(time);
            return (today.toInstant().isAfter(now) ? today : today.plusDays(1)).toInstant();
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("'" + text.strip() + "' is not a time: write 2026-12-01T09:00 (in "
                    + zone.getId() + "), 2026-12-01T09:00:00Z, or a time of day such as 09:00");
        }
    }

    /** The longest duration a schedule takes: ten years. */
    static final Duration LONGEST = Duration.ofDays(3653);

    /** A duration in the settings' grammar, longer than zero and at most {@link #LONGEST}. */
    static Duration duration(String text, String what) {
        Duration d = Settings.duration(text).orElseThrow(() -> new IllegalArgumentException("'" + text.strip()
                + "' is not a duration for " + what + ": write 30s, 10m, 1h or 2d"));
        if (d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException(what + " must be longer than zero, got '" + text.strip() + "'");
        }
        if (d.compareTo(LONGEST) > 0) {
            throw new IllegalArgumentException(what + " must be at most ten years, got '" + text.strip() + "'");
        }
        return d;
    }

    /**
     * What a schedule does, from text said in a conversation: a tool command ({@code /shell make test}) is a call,
     * free text a prompt for the assistant.
     *
     * @throws IllegalArgumentException for another command, or a tool command that is wrong
     */
    static Schedule.Action action(String text) {
        String t = text.strip();
        if (t.isEmpty()) {
            throw new IllegalArgumentException("say what to do: a prompt for the assistant, or a command such as "
                    + "/shell make test");
        }
        if (!t.startsWith("/")) {
            return new Schedule.Action.Prompt(t);
        }
        return switch (ToolCommands.parse(t).orElseThrow(() -> new IllegalArgumentException("only the commands "
                + "that run a tool (/shell, /run, /read, /ls) can be scheduled, or free text for the assistant"))) {
            case ToolCommands.Parsed.Call c -> new Schedule.Action.Call(c.tool(), c.params(), Optional.empty());
            case ToolCommands.Parsed.Usage u -> throw new IllegalArgumentException(u.text().replaceAll("\\.$", ""));
        };
    }

    /** A request as the REST API and the {@code schedule} tool take it. */
    record Request(When when, Schedule.Action action, Optional<Schedule.Missed> missed, Optional<Integer> maxRuns,
                   Optional<Instant> until) {
    }

    /**
     * Reads a request: one of {@code in}, {@code at}, {@code every}, {@code cron} (with {@code zone}); one of
     * {@code remind}, {@code prompt}, {@code tool} (with {@code params}, {@code worker}); optionally {@code missed},
     * {@code maxRuns}, {@code until}. {@code tools} says whether {@code tool} is allowed.
     *
     * @throws IllegalArgumentException naming the field that is wrong and how to write it
     */
    Request request(JsonNode body, ZoneId defaultZone, Instant now, boolean tools) {
        if (body == null || !body.isObject()) {
            throw new IllegalArgumentException("a schedule is a JSON object such as {\"every\": \"1h\", \"prompt\": "
                    + "\"check the tests\"}");
        }
        ZoneId zone = text(body, "zone").map(Schedules::zone).orElse(defaultZone);
        List<String> whens = present(body, "in", "at", "every", "cron");
        if (whens.size() != 1) {
            throw new IllegalArgumentException("say when with exactly one of in (\"10m\"), at "
                    + "(\"2026-12-01T09:00\"), every (\"1h\") or cron (\"0 9 * * mon-fri\"), got "
                    + (whens.isEmpty() ? "none" : String.join(", ", whens)));
        }
        String w = text(body, whens.getFirst()).orElseThrow(() -> new IllegalArgumentException("'"
                + whens.getFirst() + "' must be a string"));
        When when = switch (whens.getFirst()) {
            case "in" -> new When.Once(now.plus(duration(w, "in")));
            case "at" -> future(new When.Once(time(w, zone, now)), now, zone);
            case "every" -> new When.Every(duration(w, "every"), now);
            default -> new When.CronIn(Cron.parse(w), zone);
        };
        List<String> whats = present(body, "remind", "prompt", "tool");
        if (whats.size() != 1) {
            throw new IllegalArgumentException("say what with exactly one of remind (a text to post), prompt (for "
                    + "the assistant)" + (tools ? " or tool (with params and worker)" : "") + ", got "
                    + (whats.isEmpty() ? "none" : String.join(", ", whats)));
        }
        String what = text(body, whats.getFirst()).filter(s -> !s.isBlank()).orElseThrow(() ->
                new IllegalArgumentException("'" + whats.getFirst() + "' must be a string that is not empty"));
        Schedule.Action action = switch (whats.getFirst()) {
            case "remind" -> new Schedule.Action.Remind(what.strip());
            case "prompt" -> {
                if (what.strip().startsWith("/")) {
                    throw new IllegalArgumentException("a prompt is free text for the assistant; a command cannot "
                            + "be scheduled as one");
                }
                yield new Schedule.Action.Prompt(what.strip());
            }
            default -> {
                if (!tools) {
                    throw new IllegalArgumentException("schedule a prompt instead of a tool call: when it fires, "
                            + "you make the calls, and the approval policy judges them");
                }
                JsonNode params = body.path("params");
                if (!params.isMissingNode() && !params.isObject()) {
                    throw new IllegalArgumentException("'params' must be a JSON object");
                }
                yield new Schedule.Action.Call(what.strip(), params.isObject() ? ((ObjectNode) params).deepCopy()
                        : json.createObjectNode(), text(body, "worker").filter(s -> !s.isBlank()));
            }
        };
        Optional<Schedule.Missed> missed = text(body, "missed").map(m -> Schedule.Missed.of(m).orElseThrow(() ->
                new IllegalArgumentException("'missed' is skip, run-once or run-all, got '" + m + "'")));
        Optional<Integer> maxRuns = Optional.empty();
        if (body.has("maxRuns")) {
            if (!body.get("maxRuns").canConvertToInt() || !body.get("maxRuns").isIntegralNumber()
                    || body.get("maxRuns").asInt() < 1) {
                throw new IllegalArgumentException("'maxRuns' must be a whole number of at least 1, got "
                        + body.get("maxRuns"));
            }
            maxRuns = Optional.of(body.get("maxRuns").asInt());
        }
        Optional<Instant> until = text(body, "until").map(u -> time(u, zone, now));
        return new Request(when, action, missed, maxRuns, until);
    }

    /** {@code once} if it is still to come. */
    static When.Once future(When.Once once, Instant now, ZoneId zone) {
        if (!once.at().isAfter(now)) {
            throw new IllegalArgumentException(show(once.at(), zone) + " has passed");
        }
        return once;
    }

    static ZoneId zone(String id) {
        try {
            return ZoneId.of(id.strip());
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("'" + id + "' is not a time zone: write one such as Europe/Paris, "
                    + "America/New_York or UTC");
        }
    }

    private static List<String> present(JsonNode body, String... fields) {
        return Arrays.stream(fields).filter(f -> body.has(f) && !body.get(f).isNull()).toList();
    }

    private static Optional<String> text(JsonNode body, String field) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            return Optional.empty();
        }
        if (!n.isTextual()) {
            throw new IllegalArgumentException("'" + field + "' must be a string, got " + n);
        }
        return Optional.of(n.asText());
    }

    /** The stored form of {@code s}. */
    String write(Schedule s) {
        ObjectNode o = json.createObjectNode().put("id", s.id()).put("conversation", s.conversation());
        ObjectNode w = o.putObject("when");
        switch (s.when()) {
            case When.Once once -> w.put("once", once.at().toString());
            case When.Every every -> w.put("every", every.period().toString()).put("start", every.start().toString());
            case When.CronIn cron -> w.put("cron", cron.cron().toString()).put("zone", cron.zone().getId());
        }
        ObjectNode a = o.putObject("action");
        switch (s.action()) {
            case Schedule.Action.Remind r -> a.put("remind", r.text());
            case Schedule.Action.Prompt p -> a.put("prompt", p.text());
            case Schedule.Action.Call c -> {
                a.put("tool", c.tool()).set("params", c.params());
                c.worker().ifPresent(x -> a.put("worker", x));
            }
        }
        o.put("missed", s.missed().word());
        s.maxRuns().ifPresent(n -> o.put("maxRuns", n));
        s.until().ifPresent(u -> o.put("until", u.toString()));
        o.put("runs", s.runs());
        s.next().ifPresent(n -> o.put("next", n.toString()));
        o.put("created", s.created().toString());
        if (!s.pending().isEmpty()) {
            s.pending().forEach(t -> o.withArray("pending").add(t.toString()));
        }
        return o.toString();
    }

    private static <T> T unknown(String what, JsonNode node) {
        throw new IllegalArgumentException("a stored schedule has a " + what + " this brain does not know: " + node);
    }

    /** {@code data} read back. */
    Schedule read(String data) throws JsonProcessingException {
        JsonNode o = json.readTree(data);
        JsonNode w = o.path("when");
        When when = w.has("once") ? new When.Once(Instant.parse(w.get("once").asText()))
                : w.has("every") ? new When.Every(Duration.parse(w.get("every").asText()),
                Instant.parse(w.get("start").asText()))
                : w.has("cron") ? new When.CronIn(Cron.parse(w.get("cron").asText()), ZoneId.of(w.path("zone").asText()))
                : unknown("when", w);
        List<Instant> pending = new ArrayList<>();
        o.path("pending").forEach(t -> pending.add(Instant.parse(t.asText())));
        JsonNode a = o.path("action");
        Schedule.Action action = a.has("remind") ? new Schedule.Action.Remind(a.get("remind").asText())
                : a.has("prompt") ? new Schedule.Action.Prompt(a.get("prompt").asText())
                : a.has("tool") && a.path("params").isObject() ? new Schedule.Action.Call(a.get("tool").asText(),
                (ObjectNode) a.get("params"), Optional.ofNullable(a.get("worker")).map(JsonNode::asText))
                : unknown("action", a);
        return new Schedule(o.path("id").asText(), o.path("conversation").asText(), when, action,
                Schedule.Missed.of(o.path("missed").asText()).orElse(Schedule.Missed.RUN_ONCE),
                o.has("maxRuns") ? Optional.of(o.get("maxRuns").asInt()) : Optional.empty(),
                o.has("until") ? Optional.of(Instant.parse(o.get("until").asText())) : Optional.empty(),
                o.path("runs").asInt(), o.has("next") ? Optional.of(Instant.parse(o.get("next").asText()))
                : Optional.empty(), Instant.parse(o.path("created").asText()), pending);
    }
}
