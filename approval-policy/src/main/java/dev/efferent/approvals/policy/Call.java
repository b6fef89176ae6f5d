package dev.efferent.approvals.policy;

import com.fasterxml.jackson.databind.JsonNode;
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
 */
public record Call(String tool, ToolHints hints, JsonNode params, Optional<String> machine) {
    public Call {
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(hints, "hints");
        Objects.requireNonNull(params, "params");
        Objects.requireNonNull(machine, "machine");
    }
}
