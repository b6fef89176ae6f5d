package dev.efferent.scheduler;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A schedule: what fires, when, in which conversation, and how far it has got.
 *
 * @param id           its id, e.g. {@code s-7k2x9q}
 * @param conversation the conversation it belongs to: reminders and results are posted there
 * @param when         when it fires
 * @param action       what a fire does
 * @param missed       what to do about fires that fell while no brain was running
 * @param maxRuns      at most this many fires, then it ends
 * @param until        no fire after this
 * @param runs         fires so far
 * @param next         the next fire; empty once it has ended
 * @param created      when it was made
 * @param pending      fire times decided on whose tasks may not be submitted yet (a tool call's, see
 *                     {@link Scheduler})
 */
public record Schedule(String id, String conversation, When when, Action action, Missed missed,
                       Optional<Integer> maxRuns, Optional<Instant> until, int runs, Optional<Instant> next,
                       Instant created, List<Instant> pending) {
    public Schedule {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(conversation, "conversation");
        Objects.requireNonNull(when, "when");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(missed, "missed");
        Objects.requireNonNull(maxRuns, "maxRuns");
        Objects.requireNonNull(until, "until");
        Objects.requireNonNull(next, "next");
        Objects.requireNonNull(created, "created");
        pending = List.copyOf(pending);
    }

    /** This schedule after {@code fired} more fires, next at {@code next}, with {@code pending} to submit. */
    Schedule advanced(int fired, Instant next, List<Instant> pending) {
        return new Schedule(id, conversation, when, action, missed, maxRuns, until, runs + fired, Optional.of(next),
                created, pending);
    }

    /** This schedule after {@code fired} more fires and no next one, with {@code pending} to submit. */
    Schedule ended(int fired, List<Instant> pending) {
        return new Schedule(id, conversation, when, action, missed, maxRuns, until, runs + fired, Optional.empty(),
                created, pending);
    }

    /** What a fire does. */
    public sealed interface Action {
        /** In words, for {@code /schedules}. */
        String describe();

        /** Posts {@code text} in the conversation; no model needed. */
        record Remind(String text) implements Action {
            @Override
            public String describe() {
                return "remind: " + text;
            }
        }

        /** Gives {@code text} to the assistant in the conversation, as if the person had said it. */
        record Prompt(String text) implements Action {
            @Override
            public String describe() {
                return "prompt: " + text;
            }
        }

        /** Runs {@code tool} with {@code params}, on {@code worker} or the conversation's active machine: a task. */
        record Call(String tool, ObjectNode params, Optional<String> worker) implements Action {
            @Override
            public String describe() {
                return "run " + tool + " " + params + worker.map(w -> " on " + w).orElse("");
            }
        }
    }

    /** What to do about fires that fell while no brain was running. */
    public enum Missed {
        /** Drop them: the schedule goes on from its next time. */
        SKIP,
        /** Fire once for all of them (the default). */
        RUN_ONCE,
        /** Fire each of them, up to {@code scheduler.max-catch-up}. */
        RUN_ALL;

        /** As written in settings and requests: {@code skip}, {@code run-once}, {@code run-all}. */
        public String word() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /** The policy written as {@code word}. */
        static Optional<Missed> of(String word) {
            for (Missed m : values()) {
                if (m.word().equals(word.strip().toLowerCase(Locale.ROOT))) {
                    return Optional.of(m);
                }
            }
            return Optional.empty();
        }
    }
}
