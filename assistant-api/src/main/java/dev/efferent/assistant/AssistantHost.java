package dev.efferent.assistant;

import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.IncomingMessage;
import dev.efferent.channel.spi.OutgoingMessage;

/** What an {@link Assistant} may do in any conversation at any time: the conversation service, seen from it. */
public interface AssistantHost {
    /** The way back to {@code conversation}. */
    Replies replies(Conversation conversation);

    /** Runs {@code turn} in the conversation's turn lane: after the turn running now, one at a time. */
    void inTurn(Conversation conversation, Runnable turn);

    /**
     * Starts a turn of the assistant with {@code message}, free text said on the person's behalf by something they
     * set up earlier (a scheduled prompt). It is kept in the conversation like what they say, but never taken as the
     * answer to a question the assistant is waiting on.
     */
    void prompt(IncomingMessage message);

    /** Whether what is sent to {@code conversation} reaches someone: its channel is there. */
    boolean reachable(Conversation conversation);

    /**
     * Tells the person on their other channels too (e.g. Telegram when the question was asked in the console): the
     * most recently active conversation of every other channel gets {@code message}.
     */
    void notifyElsewhere(Conversation origin, OutgoingMessage message);
}
