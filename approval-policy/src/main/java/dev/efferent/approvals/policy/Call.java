package dev.efferent.approvals.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.efferent.tools.spi.Risk;
import dev.efferent.tools.spi.ToolHints;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

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

    /**
     * What this exact call is, as 16 hex digits of a SHA-256 over the tool, its arguments (keys sorted) and its
     * machine: an approval of "this call" holds for nothing that differs by one character.
     */
    public String hash() {
        try {
            var digest = MessageDigest.getInstance("SHA-256");
            String text = tool + "\n" + canonical(params) + "\n" + machine.orElse("");
            byte[] sum = digest.digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sum, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }

    /** JSON with every object's keys in order, so that one call has one text. */
    private static String canonical(JsonNode node) {
        if (node.isObject()) {
            TreeMap<String, JsonNode> sorted = new TreeMap<>();
            node.fields().forEachRemaining(e -> sorted.put(e.getKey(), e.getValue()));
            StringBuilder s = new StringBuilder("{");
            sorted.forEach((k, v) -> s.append(s.length() > 1 ? "," : "").append(
                    TextNode.valueOf(k)).append(':').append(canonical(v)));
            return s.append('}').toString();
        }
        if (node.isArray()) {
            StringBuilder s = new StringBuilder("[");
            node.forEach(v -> s.append(s.length() > 1 ? "," : "").append(canonical(v)));
            return s.append(']').toString();
        }
        return node.toString();
    }

    /** This call, judged {@code risk} by its tool. */
    public Call withRisk(Risk risk) {
        return new Call(tool, hints, params, machine, risk);
    }
}
