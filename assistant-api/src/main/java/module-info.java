/**
 * The assistant's seam, below the agent: what answers a conversation ({@code Assistant}), how it reaches one later
 * ({@code AssistantHost}, {@code Replies}), and what the brain's features add to it ({@code Extension},
 * {@code Calls}). Schedules, automations and pairing plug in here without knowing the agent.
 */
module efferent.assistant.api {
    requires transitive efferent.channel.spi;
    requires transitive efferent.model.spi;
    requires transitive efferent.queue.spi;
    requires transitive com.fasterxml.jackson.databind;

    exports dev.efferent.assistant;
}
