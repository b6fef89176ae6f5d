package dev.efferent.protocol;

import java.util.List;

/**
 * {@code worker:tools}, worker to brain, after {@code worker:ack}: the worker's whole tool list now, replacing the
 * one it registered. A worker sends it when its tools change, and right after a {@code task:rejected unknown_tool},
 * so that the brain's view of it is refreshed rather than guessed. Checked like {@code worker:register}'s.
 *
 * @param capabilities the tools the worker can run now
 */
public record WorkerTools(List<ToolDescriptor> capabilities) implements Message {
    public static final String TYPE = "worker:tools";

    public WorkerTools {
        capabilities = List.copyOf(capabilities);
    }

    @Override
    public String type() {
        return TYPE;
    }
}
