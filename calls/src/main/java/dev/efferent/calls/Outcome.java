package dev.efferent.calls;

import dev.efferent.core.tools.ToolResultJson;
import dev.efferent.queue.Task;
import dev.efferent.tools.spi.Content;
import dev.efferent.tools.spi.ToolResult;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a finished call came to, read once from its task: the tool's result, or why there is none. A result the tool
 * marked as an error is still {@link Completed}: the tool ran and said so ({@link #ok()} tells them apart).
 */
public sealed interface Outcome {
    /** The tool ran to its end; {@code result} is what it returned (possibly an error it reported). */
    record Completed(ToolResult result) implements Outcome {
    }

    /** The call failed without a result (a crash, a lost machine, a deadline); {@code error} says why. */
    record Failed(String error) implements Outcome {
    }

    /** The call was stopped before it ended, or never ran (denied, cancelled); {@code reason} says why. */
    record Cancelled(String reason) implements Outcome {
    }

    /** The outcome of {@code task}; empty while it has not finished. */
    static Optional<Outcome> of(Task task) {
        return switch (task.status()) {
            case COMPLETED -> Optional.of(new Completed(task.result().map(ToolResultJson::stored)
                    .orElse(ToolResult.text(""))));
            case FAILED -> Optional.of(new Failed(task.error().orElse("no reason given")));
            case CANCELLED -> Optional.of(new Cancelled(task.error().orElse("cancelled")));
            case AWAITING_APPROVAL, QUEUED, CLAIMED, RUNNING -> Optional.empty();
        };
    }

    /** The outcome of {@code task}, which its caller knows has finished; one that has not counts as failed. */
    static Outcome ofFinished(Task task) {
        return of(task).orElseGet(() -> new Failed(task.error().orElse("no reason given")));
    }

    /** Whether the call ran and its result is not an error. */
    default boolean ok() {
        return this instanceof Completed c && !c.result().isError();
    }

    /**
     * The result's text, its parts on lines of their own, images named (as shown to the person); empty for a call
     * that did not complete.
     */
    default String text() {
        if (!(this instanceof Completed c)) {
            return "";
        }
        List<String> parts = new ArrayList<>();
        for (Content content : c.result().content()) {
            switch (content) {
                case Content.Text t -> parts.add(t.text());
                case Content.Image i -> parts.add("[an image, " + i.mimeType() + ", shown to the person]");
            }
        }
        return String.join("\n", parts);
    }
}
