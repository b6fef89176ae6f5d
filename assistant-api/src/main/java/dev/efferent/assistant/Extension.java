package dev.efferent.assistant;

import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;
import dev.efferent.model.spi.ModelTool;
import dev.efferent.model.spi.ToolCall;

import java.util.List;
import java.util.Optional;

/**
 * What the brain itself adds to every conversation beside the machines' tools: commands, and tools the model may
 * call that are answered in the brain at once (schedules, automations). Given to the assistant (the agent), which offers
 * them whether or not a model is configured (commands) or only with one (tools).
 */
public interface Extension {
    /** Tools the model may call in {@code conversation}; their names must not be those of machines' tools. */
    default List<ModelTool> tools(Conversation conversation) {
        return List.of();
    }

    /**
     * Answers {@code call} of one of {@link #tools} in {@code conversation}: text for the model. A bad call is
     * answered with what was wrong, for the model to correct; it throws only when the brain itself failed.
     */
    default String call(Conversation conversation, ToolCall call) {
        return "There is no tool named '" + call.name() + "'.";
    }

    /** Answers a command this extension owns; empty for one it does not know. Called in the conversation's lane. */
    default Optional<List<OutgoingMessage>> command(IncomingMessage message) {
        return Optional.empty();
    }

    /**
     * {@code /stop} in {@code conversation}: ends what this extension runs there (an automation's run); how many it
     * ended.
     */
    default int stop(Conversation conversation) {
        return 0;
    }

    /** Lines for {@code /help}, one per command, e.g. {@code /schedules — what is scheduled here}. */
    default List<String> help() {
        return List.of();
    }

    /** Called once, as the assistant starts: how to reach conversations from now on. */
    default void start(AssistantHost host) {
    }

    /**
     * Called once, as the assistant starts, instead of {@link #start(AssistantHost)} (which the default calls): how
     * to reach conversations, and how to make tool calls as the assistant does.
     */
    default void start(AssistantHost host, Calls calls) {
        start(host);
    }
}
