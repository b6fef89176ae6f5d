/**
 * The {@code anthropic} model provider: {@code POST /v1/messages} with {@code tool_use} and {@code tool_result},
 * streamed (its {@code message_start} … {@code message_stop} events) or whole. Tool results and a person's text
 * after them join one user message, as the API's alternating roles require.
 */
package dev.efferent.model.anthropic;
