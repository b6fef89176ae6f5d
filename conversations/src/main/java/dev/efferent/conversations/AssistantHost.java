package dev.efferent.conversations;

import dev.efferent.channel.spi.Conversation;

/** What an {@link Assistant} may do in any conversation at any time: the conversation service, seen from it. */
public interface AssistantHost {
    /** The way back to {@code conversation}. */
    Replies replies(Conversation conversation);

    /** Runs {@code turn} in the conversation's turn lane: after the turn running now, one at a time. */
    void inTurn(Conversation conversation, Runnable turn);
}
