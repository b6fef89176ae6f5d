/**
 * The {@code openai} model provider: {@code POST /chat/completions} with tools, streamed (tool-call fragments
 * joined by their index, usage from {@code stream_options.include_usage}) or whole.
 */
package dev.efferent.model.openai;
