/**
 * The assistant's mind: {@link dev.efferent.agent.Agent}, the conversations module's assistant.
 *
 * <h2>A turn</h2>
 * The conversation so far (since the last {@code /new}, its oldest turns dropped to fit
 * {@code agent.max-context-tokens}), a system prompt naming the machines, and the catalogue of every tool go to the
 * model; its text streams to the conversation; each tool call becomes a task through the front door
 * ({@code efferent.calls}), with the conversation as its session and the assistant as its origin, and its result goes
 * back to the model as a tool result, until the model answers or {@code agent.max-steps} is reached.
 *
 * <h2>The parked turn</h2>
 * A call waiting for an offline machine sets the turn aside: its messages and pending task ids are kept in the
 * store's namespace {@code agent.parked}, by turn id, and it resumes in the conversation's turn lane when the tasks have
 * finished, after a restart too. Turns parked longer than {@code agent.park-timeout} end and cancel their tasks.
 */
package dev.efferent.agent;
