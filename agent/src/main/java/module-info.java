/**
 * The assistant's mind: {@link dev.efferent.agent.Agent}, the LLM loop behind the conversations module's
 * {@link dev.efferent.assistant.Assistant} seam. Each tool call the model makes becomes a task through the
 * router; a turn waiting for an offline machine parks and resumes when the task finishes.
 */
module efferent.agent {
    requires transitive efferent.assistant.api;
    requires transitive efferent.conversations;
    requires transitive efferent.model.spi;
    requires transitive efferent.approvals;
    requires efferent.calls;
    requires com.fasterxml.jackson.databind;

    exports dev.efferent.agent;

    uses dev.efferent.model.spi.ModelProvider;
}
