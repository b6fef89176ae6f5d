/**
 * What a language model provider implements: {@link dev.efferent.model.spi.ModelProvider} opens a
 * {@link dev.efferent.model.spi.Model}; one {@link dev.efferent.model.spi.Model#complete call} takes the system
 * prompt, the conversation and the tools, streams text to a listener and returns the whole
 * {@link dev.efferent.model.spi.ModelReply}. Failures are a {@link dev.efferent.model.spi.ModelException} whose kind
 * says what went wrong and whose message says it in words fit for the conversation.
 */
package dev.efferent.model.spi;
