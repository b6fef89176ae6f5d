package dev.efferent.brain;

import dev.efferent.channel.spi.Channel;
import dev.efferent.channel.spi.Conversation;
import dev.efferent.channel.spi.Inbox;
import dev.efferent.channel.spi.OutgoingMessage;

/**
 * The REST API's conversations ({@code api:<id>}): what is said to them is kept in the conversation and read with
 * {@code GET /api/v1/conversations/{id}/messages} or in the reply to {@code ?wait}, so sending does nothing more.
 * It is a channel so that these conversations count as reachable: a question asked there can be answered.
 */
final class ApiChannel implements Channel {
    @Override
    public String name() {
        return ApiService.API_CHANNEL;
    }

    @Override
    public void start(Inbox inbox) {
        // Messages arrive through ApiService, not through this channel.
    }

    @Override
    public void send(Conversation conversation, OutgoingMessage message) {
        // Kept by the conversation service; read over REST.
    }
}
