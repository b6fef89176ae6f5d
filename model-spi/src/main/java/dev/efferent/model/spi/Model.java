package dev.efferent.model.spi;

/**
 * A language model behind an API. Thread-safe: one call per conversation turn, several turns at once.
 */
public interface Model {
    /** What it is and where, for people: e.g. {@code gpt-4o-mini at https://api.openai.com/v1 (openai)}. */
    String describe();

    /**
     * Sends {@code request} and waits for the whole answer, passing text to {@code listener} as it arrives.
     * Blocks the calling thread (callers use virtual threads); an interrupt abandons the call.
     *
     * @return the answer: its text, the tools it calls, why it stopped, the tokens it used
     * @throws ModelException when the model cannot answer, saying why in words a user can act on
     */
    ModelReply complete(ModelRequest request, ModelListener listener);
}
