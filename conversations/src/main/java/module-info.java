/**
 * The assistant's side of every conversation: commands, checkpoints of the tasks a conversation started, notices
 * about its machines, and the asynchronous {@link dev.efferent.assistant.Assistant} seam for text that is not a
 * command. Each conversation has a lane of its own, so one slow conversation never delays another.
 */
module efferent.conversations {
    requires transitive efferent.router;
    requires transitive efferent.calls;
    requires transitive efferent.assistant.api;
    requires transitive efferent.channel.spi;
    requires efferent.core;
    requires com.fasterxml.jackson.databind;

    exports dev.efferent.conversations;
}
