package dev.efferent.agent;

import dev.efferent.plugin.Settings;
import dev.efferent.plugin.SettingsException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The agent's settings, from {@code agent.*}.
 *
 * @param maxSteps           model calls in one turn before it ends and says so (default 20)
 * @param maxToolResultChars longest tool result the model reads; the rest is cut with a marker (default 8000)
 * @param maxContextTokens   the conversation sent to the model, estimated; the oldest turns are dropped first
 *                           (default 16000)
 * @param parkTimeout        how long a parked turn waits for its tasks before it ends (default 24h)
 * @param systemPrompt       instructions that replace the built-in ones (the machine list is added either way)
 * @param humanTimeout       how long {@code ask_human} waits for the person (default 10m)
 * @param maxChildren        sub-agents one conversation may have running (default 5)
 * @param maxConcurrentChildren sub-agents that may run at once across all conversations (default 8)
 */
public record AgentSettings(int maxSteps, int maxToolResultChars, int maxContextTokens, Duration parkTimeout,
                            Optional<String> systemPrompt, Duration humanTimeout, int maxChildren,
                            int maxConcurrentChildren) {

    /** The defaults. */
    public static AgentSettings defaults() {
        return from(Settings.empty());
    }

    /** Reads {@code settings} ({@code agent.*}); {@code system-prompt-file} is read now. */
    public static AgentSettings from(Settings settings) {
        Optional<String> prompt = settings.get("system-prompt").filter(p -> !p.isBlank());
        Optional<String> file = settings.get("system-prompt-file").filter(p -> !p.isBlank());
        if (prompt.isPresent() && file.isPresent()) {
            throw new SettingsException("set " + settings.describe("system-prompt") + " or "
                    + settings.describe("system-prompt-file") + ", not both");
        }
        if (file.isPresent()) {
            try {
                prompt = Optional.of(Files.readString(Path.of(file.get().strip())));
            } catch (IOException | RuntimeException e) {
                throw new SettingsException("setting " + settings.describe("system-prompt-file") + " names '"
                        + file.get() + "', which cannot be read: " + e.getMessage());
            }
        }
        return new AgentSettings(atLeast(settings, "max-steps", 20, 1), atLeast(settings, "max-tool-result-chars", 8000, 100),
                atLeast(settings, "max-context-tokens", 16000, 1000),
                settings.getDuration("park-timeout", Duration.ofHours(24)), prompt,
                settings.getDuration("human-timeout", Duration.ofMinutes(10)), atLeast(settings, "max-children", 5, 1),
                atLeast(settings, "max-concurrent-children", 8, 1));
    }

    private static int atLeast(Settings settings, String key, int defaultValue, int min) {
        int value = settings.getInt(key, defaultValue);
        if (value < min) {
            throw new SettingsException("setting " + settings.describe(key) + " must be at least " + min + ", got "
                    + value);
        }
        return value;
    }
}
