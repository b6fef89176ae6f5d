package dev.efferent.scheduler;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.assistant.AssistantHost;
import dev.efferent.assistant.Extension;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.model.spi.ModelTool;
import dev.efferent.model.spi.ToolCall;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The scheduler's chat face: {@code /remind}, {@code /every}, {@code /schedules}, {@code /unschedule}, and the tools the
 * model may call for the same. The {@link Extension} the brain gives the assistant; the {@link Scheduler} fires, its
 * {@link ScheduleStore} keeps.
 */
public final class ScheduleCommands implements Extension {
    static final List<String> HELP = List.of(
            "/remind <10m | at 09:00 | at 2026-12-01T09:00> <text> — post the text here then",
            "/every <1h | \"0 9 * * mon-fri\"> <command or prompt> — run it again and again, e.g. /every 1h /shell make test",
            "/schedules — what is scheduled here",
            "/unschedule <id> — remove a schedule");
    private static final String REMIND_USAGE = "Usage: /remind <when> <text>, where when is 10m, in 10m, at 09:00 or "
            + "at 2026-12-01T09:00";
    private static final String EVERY_USAGE = "Usage: /every <1h | \"<cron>\"> <command or prompt>, e.g. /every 1h "
            + "/shell make test, /every \"0 9 * * mon-fri\" summarise my inbox";
    static final String SCHEDULE = "schedule";
    static final String UNSCHEDULE = "unschedule";
    static final String LIST = "list_schedules";
    private static final List<ModelTool> TOOLS = List.of(
            new ModelTool(SCHEDULE, "Schedule something in this conversation: a reminder (posted as written, "
                    + "no model needed) or a prompt to yourself (you answer it when it fires, with the tools you "
                    + "have then). Give exactly one of in, at, every, cron and one of remind, prompt. Returns the "
                    + "schedule's id.", """
                    {"type":"object","properties":{
                    "in":{"type":"string","description":"once, after this long: 30s, 10m, 2h, 1d"},
                    "at":{"type":"string","description":"once, at this time: 2026-12-01T09:00, or 09:00 for the next one"},
                    "every":{"type":"string","description":"at this interval: 5m, 1h"},
                    "cron":{"type":"string","description":"five cron fields: minute hour day month weekday, e.g. 0 9 * * mon-fri"},
                    "zone":{"type":"string","description":"time zone for at and cron, e.g. Europe/Paris"},
                    "remind":{"type":"string","description":"the reminder text to post"},
                    "prompt":{"type":"string","description":"what to do when it fires, for you"},
                    "maxRuns":{"type":"integer","minimum":1,"description":"stop after this many fires"},
                    "until":{"type":"string","description":"no fire after this time"}}}"""),
            new ModelTool(UNSCHEDULE, "Remove a schedule of this conversation by its id.",
                    "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}},\"required\":[\"id\"]}"),
            new ModelTool(LIST, "List the schedules of this conversation: id, when, what, next fire.",
                    "{\"type\":\"object\",\"properties\":{}}"));

    private final Scheduler scheduler;
    private final ZoneId zone;
    private final Clock clock;
    private final Schedules schedules;
    private final ObjectMapper json;

    /** The chat face of {@code scheduler}. */
    public ScheduleCommands(Scheduler scheduler) {
        this.scheduler = scheduler;
        this.schedules = scheduler.schedules();
        this.json = scheduler.json();
        this.zone = scheduler.settings().zone();
        this.clock = scheduler.clock();
    }

    @Override
    public void start(AssistantHost host) {
        scheduler.start(host);
    }

    @Override
    public List<ModelTool> tools(Conversation conversation) {
        return TOOLS;
    }

    @Override
    public List<String> help() {
        return HELP;
    }

    @Override
    public Optional<List<OutgoingMessage>> command(IncomingMessage message) {
        String text = message.text().strip();
        int space = text.indexOf(' ');
        String command = (space < 0 ? text : text.substring(0, space)).toLowerCase(Locale.ROOT);
        String args = space < 0 ? "" : text.substring(space + 1).strip();
        String key = message.conversation().key();
        try {
            return switch (command) {
                case "/remind" -> say(remind(key, args));
                case "/every" -> say(every(key, args));
                case "/schedules" -> say(list(key));
                case "/unschedule" -> say(unschedule(key, args, true));
                default -> Optional.empty();
            };
        } catch (IllegalArgumentException e) {
            return say("Not scheduled: " + e.getMessage() + ".\n" + (command.equals("/remind") ? REMIND_USAGE
                    : EVERY_USAGE));
        }
    }

    @Override
    public String call(Conversation conversation, ToolCall call) {
        JsonNode args;
        try {
            args = json.readTree(call.arguments());
        } catch (JsonProcessingException e) {
            return "The arguments are not valid JSON (" + e.getOriginalMessage() + ").";
        }
        try {
            return switch (call.name()) {
                case SCHEDULE -> {
                    Schedule s = scheduler.create(conversation.key(),
                            schedules.request(args, zone, clock.instant(), false));
                    yield "Scheduled " + s.id() + ": " + scheduler.describe(s);
                }
                case UNSCHEDULE -> unschedule(conversation.key(), args.path("id").asText(""), false);
                case LIST -> list(conversation.key());
                default -> "There is no tool named '" + call.name() + "'.";
            };
        } catch (IllegalArgumentException e) {
            return (call.name().equals(SCHEDULE) ? "Not scheduled: " : "Not done: ") + e.getMessage() + ".";
        }
    }

    private String remind(String conversation, String args) {
        String[] words = args.split("\\s+");
        Instant now = clock.instant();
        int used;
        When when;
        if (words[0].equalsIgnoreCase("at") && words.length > 1) {
            // "at 2026-12-01 09:00" is two words.
            boolean dateAndTime = words.length > 2 && words[1].matches("\\d{4}-\\d{2}-\\d{2}")
                    && words[2].matches("\\d{1,2}:\\d{2}(:\\d{2})?");
            used = dateAndTime ? 3 : 2;
            String at = dateAndTime ? words[1] + "T" + words[2] : words[1];
            when = Schedules.future(new When.Once(Schedules.time(at, zone, now)), now, zone);
        } else {
            boolean in = words[0].equalsIgnoreCase("in") && words.length > 1;
            used = in ? 2 : 1;
            if (args.isEmpty()) {
                throw new IllegalArgumentException("say when and what");
            }
            when = new When.Once(now.plus(Schedules.duration(words[in ? 1 : 0], "/remind")));
        }
        String text = rest(args, used);
        if (text.isEmpty()) {
            throw new IllegalArgumentException("say what to be reminded of");
        }
        Schedule s = scheduler.create(conversation, new Schedules.Request(when, new Schedule.Action.Remind(text),
                Optional.empty(), Optional.empty(), Optional.empty()));
        return "I will remind you at " + Schedules.show(s.next().orElseThrow(), zone) + " (" + s.id() + ").";
    }

    private String every(String conversation, String args) {
        if (args.isEmpty()) {
            throw new IllegalArgumentException("say how often and what");
        }
        When when;
        String what;
        if (args.startsWith("\"")) {
            int end = args.indexOf('"', 1);
            if (end < 0) {
                throw new IllegalArgumentException("the cron expression has no closing quote");
            }
            when = new When.CronIn(Cron.parse(args.substring(1, end)), zone);
            what = args.substring(end + 1).strip();
        } else {
            when = new When.Every(Schedules.duration(args.split("\\s+")[0], "/every"), clock.instant());
            what = rest(args, 1);
        }
        Schedule s = scheduler.create(conversation, new Schedules.Request(when, Schedules.action(what),
                Optional.empty(), Optional.empty(), Optional.empty()));
        return "Scheduled " + s.id() + ": " + scheduler.describe(s) + ". /unschedule " + s.id() + " stops it.";
    }

    private String list(String conversation) {
        List<Schedule> here = scheduler.list(conversation);
        if (here.isEmpty()) {
            return "Nothing is scheduled here. /remind 10m <text> or /every 1h <command or prompt> sets something.";
        }
        return here.stream().map(s -> s.id() + "  " + scheduler.describe(s))
                .collect(Collectors.joining("\n", "Schedules:\n", ""));
    }

    private String unschedule(String conversation, String id, boolean anywhere) {
        String wanted = id.strip();
        if (wanted.isEmpty() || wanted.contains(" ")) {
            return "Usage: /unschedule <id> — give one schedule id; /schedules lists them.";
        }
        Optional<Schedule> s = scheduler.get(wanted);
        // The model may only touch its own conversation's schedules; the person may remove any.
        if (s.isEmpty() || (!anywhere && !s.get().conversation().equals(conversation))) {
            return "There is no schedule " + wanted + (anywhere ? "" : " in this conversation")
                    + "; /schedules lists them.";
        }
        return scheduler.delete(wanted) ? "Removed schedule " + wanted + " (" + s.get().action().describe() + ")."
                : "Schedule " + wanted + " has just ended.";
    }

    /** {@code text} without its first {@code words} words. */
    private static String rest(String text, int words) {
        String[] parts = text.strip().split("\\s+", words + 1);
        return parts.length > words ? parts[words].strip() : "";
    }

    private static Optional<List<OutgoingMessage>> say(String text) {
        return Optional.of(List.of(new OutgoingMessage.Text(text)));
    }
}
