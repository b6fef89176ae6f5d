package dev.efferent.approvals.policy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.efferent.tools.spi.Risk;
import dev.efferent.tools.spi.ToolHints;

import java.util.Objects;
import java.util.Optional;

/**
 * A call the policy judges.
 *
 * @param tool    the tool's name
 * @param hints   what the tool says of itself
 * @param params  its arguments
 * @param machine the machine it runs on, if known (a named or active worker)
 * @param risk    how risky the tool itself judges this call ({@link dev.efferent.tools.spi.Tool#risk})
 */
public record Call(String tool, ToolHints hints, JsonNode params, Optional<String> machine, Risk risk) {
    public Call {
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(hints, "hints");
        Objects.requireNonNull(params, "params");
        Objects.requireNonNull(machine, "machine");
        Objects.requireNonNull(risk, "risk");
    }

    /** A call the tool has not judged. */
    public Call(String tool, ToolHints hints, JsonNode params, Optional<String> machine) {
        this(tool, hints, params, machine, Risk.UNJUDGED);
    }

    /** This call, judged {@code risk} by its tool. */
    public Call withRisk(Risk risk) {
        return new Call(tool, hints, params, machine, risk);
    }
}
