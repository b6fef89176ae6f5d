/**
 * The seam between the conversations and whatever answers them: the {@link dev.efferent.assistant.Assistant} that
 * answers text that is not a command, the {@link dev.efferent.assistant.AssistantHost} it reaches conversations
 * through, and the {@link dev.efferent.assistant.Extension}s (schedules, automations, pairing) that add commands and
 * tools to it, making tool calls through {@link dev.efferent.assistant.Calls}.
 */
package dev.efferent.assistant;
