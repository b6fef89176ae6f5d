package dev.efferent.calls;

import dev.efferent.channel.spi.Conversation;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Who asks for a tool call. Each kind says where what comes of the call is reported, which browser session it acts
 * in, the idempotency key that makes a retried call the same task, and what it may do without asking
 * ({@link #standing()}): the one place where the kinds of callers differ.
 */
public sealed interface Origin {
    /** Someone in a conversation, by a command ({@code /run}, {@code /shell}, …). */
    record Person(Conversation conversation) implements Origin {
        public Person {
            Objects.requireNonNull(conversation, "conversation");
        }
    }

    /** The assistant (the model) in a conversation: the call {@code call} of step {@code step} of turn {@code turn}. */
    record Assistant(Conversation conversation, String turn, int step, String call) implements Origin {
        public Assistant {
            Objects.requireNonNull(conversation, "conversation");
            Objects.requireNonNull(turn, "turn");
            Objects.requireNonNull(call, "call");
        }
    }

    /** Step {@code step} of run {@code run} of an automation, replayed in a conversation. */
    record Automation(Conversation conversation, String run, int step) implements Origin {
        public Automation {
            Objects.requireNonNull(conversation, "conversation");
            Objects.requireNonNull(run, "run");
        }
    }

    /** The fire at {@code fire} of schedule {@code id}, set up in a conversation. */
    record Schedule(Conversation conversation, String id, Instant fire) implements Origin {
        public Schedule {
            Objects.requireNonNull(conversation, "conversation");
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(fire, "fire");
        }
    }

    /** A caller of the REST API, holding the API token. */
    record Api(String principal) implements Origin {
        public Api {
            Objects.requireNonNull(principal, "principal");
        }
    }

    /** A client of the brain's MCP endpoint, in MCP session {@code session}. */
    record Mcp(String session) implements Origin {
        public Mcp {
            Objects.requireNonNull(session, "session");
        }
    }

    /**
     * What each kind of caller may do without asking, and how its calls are shown.
     *
     * @param judged        the approval policy decides whether its calls run, wait for a yes, or are refused; a
     *                      person's own commands and what they set up to run (a schedule) are their own yes
     * @param mayWaitForYes a call the policy asks about waits for a yes in the conversation; otherwise it is refused
     *                      (there is nobody to ask)
     * @param reportedByCaller the caller reports the result itself (the assistant's answer), so the conversation
     *                      shows one line for it rather than the whole result
     * @param recordable    its calls may be recorded into an automation ({@code /record})
     * @param judgedAsNamingNone a call that names no machine is judged as naming none as well as for each machine
     *                      that could take it, even when only one could (no one watches where an MCP client's
     *                      call lands)
     */
    record Standing(boolean judged, boolean mayWaitForYes, boolean reportedByCaller, boolean recordable,
                    boolean judgedAsNamingNone) {
    }

    /** What this caller may do without asking: the table of every kind, in one place. */
    default Standing standing() {
        return switch (this) {
            case Person p -> new Standing(false, false, false, true, false);
            case Assistant a -> new Standing(true, true, true, true, false);
            case Automation a -> new Standing(true, true, true, false, false);
            case Schedule s -> new Standing(false, false, false, false, false);
            case Api a -> new Standing(false, false, false, false, false);
            case Mcp m -> new Standing(true, false, false, false, true);
        };
    }

    /** The conversation that hears what comes of the call; empty for callers outside any conversation. */
    default Optional<Conversation> reportsTo() {
        return switch (this) {
            case Person p -> Optional.of(p.conversation());
            case Assistant a -> Optional.of(a.conversation());
            case Automation a -> Optional.of(a.conversation());
            case Schedule s -> Optional.of(s.conversation());
            case Api a -> Optional.empty();
            case Mcp m -> Optional.empty();
        };
    }

    /**
     * The browser session the call acts in: a conversation's calls share its pages, whoever makes them; the API's
     * callers share one, and so do MCP's clients.
     */
    default String browserSession() {
        return switch (this) {
            case Person p -> p.conversation().key();
            case Assistant a -> a.conversation().key();
            case Automation a -> a.conversation().key();
            case Schedule s -> s.conversation().key();
            case Api a -> "api";
            case Mcp m -> "mcp";
        };
    }

    /**
     * The idempotency key that makes this call, made again (a step retried after a restart, a fire seen by two
     * brains), the same task; empty where the caller gives its own or none.
     */
    default Optional<String> idempotencyKey() {
        return switch (this) {
            case Assistant a -> Optional.of("assistant:" + a.turn() + ":" + a.step() + ":" + a.call());
            case Automation a -> Optional.of("assistant:automation:" + a.run() + ":" + a.step());
            case Schedule s -> Optional.of("schedule:" + s.id() + ":" + s.fire());
            case Person p -> Optional.empty();
            case Api a -> Optional.empty();
            case Mcp m -> Optional.empty();
        };
    }
}
