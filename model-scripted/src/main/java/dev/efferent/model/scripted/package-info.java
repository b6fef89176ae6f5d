/**
 * For tests and benchmarks only: {@link dev.efferent.model.scripted.ScriptedModelServer}, a model server on
 * 127.0.0.1 that answers each request with the next {@link dev.efferent.model.scripted.Step} of its script, in the
 * protocol (OpenAI or Anthropic) and mode (whole or streamed) the request asked for, and records what it received.
 */
package dev.efferent.model.scripted;
