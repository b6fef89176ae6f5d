package dev.efferent.model.http;

import dev.efferent.plugin.Settings;
import dev.efferent.plugin.SettingsException;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/**
 * A model provider's settings, from {@code model.*}.
 *
 * @param provider     the provider's name, for messages
 * @param baseUrl      the API's base URL, e.g. {@code https://api.openai.com/v1}
 * @param name         the model's name
 * @param apiKey       the API key, if any (a local server needs none)
 * @param timeout      how long one call may take, from sending to the last token
 * @param maxTokens    the most tokens one answer may have
 * @param temperature  the sampling temperature, if set
 * @param maxRetries   how often a call refused with 429 or 5xx, or unreachable, is tried again
 * @param retryBackoff the first wait before trying again; doubled each time (a server's Retry-After wins)
 * @param stream       whether answers are streamed (server-sent events) rather than sent whole
 */
public record ModelSettings(String provider, URI baseUrl, String name, Optional<String> apiKey, Duration timeout,
                            int maxTokens, Optional<Double> temperature, int maxRetries, Duration retryBackoff,
                            boolean stream) {

    /**
     * Reads {@code settings}.
     *
     * @param provider       the provider's name
     * @param defaultBaseUrl the base URL when {@code base-url} is not set
     * @param keyVariable    the environment variable read when {@code api-key} is not set, e.g. {@code OPENAI_API_KEY}
     */
    public static ModelSettings from(Settings settings, String provider, String defaultBaseUrl, String keyVariable) {
        String base = settings.get("base-url").orElse(defaultBaseUrl).strip();
        URI baseUrl;
        try {
            baseUrl = URI.create(base.endsWith("/") ? base.substring(0, base.length() - 1) : base);
        } catch (IllegalArgumentException e) {
            throw new SettingsException("setting " + settings.describe("base-url") + " must be a URL such as "
                    + defaultBaseUrl + ", got '" + base + "'");
        }
        if (baseUrl.getScheme() == null || !baseUrl.getScheme().matches("https?") || baseUrl.getHost() == null) {
            throw new SettingsException("setting " + settings.describe("base-url") + " must be an http or https URL "
                    + "such as " + defaultBaseUrl + ", got '" + base + "'");
        }
        String name = settings.get("name").map(String::strip).filter(n -> !n.isEmpty())
                .orElseThrow(() -> new SettingsException("setting " + settings.describe("name") + " must name the "
                        + "model, e.g. llama3.2 for Ollama or gpt-4o-mini for OpenAI"));
        Optional<String> key = settings.get("api-key").map(String::strip).filter(k -> !k.isEmpty())
                .or(() -> Optional.ofNullable(System.getenv(keyVariable)).map(String::strip).filter(k -> !k.isEmpty()));
        Duration timeout = settings.getDuration("timeout", Duration.ofMinutes(2));
        int maxTokens = settings.getInt("max-tokens", 4096);
        if (maxTokens < 1) {
            throw new SettingsException("setting " + settings.describe("max-tokens") + " must be at least 1, got "
                    + maxTokens);
        }
        Optional<Double> temperature = settings.get("temperature").map(t -> {
            try {
                double value = Double.parseDouble(t.strip());
                if (value < 0 || value > 2) {
                    throw new NumberFormatException();
                }
                return value;
            } catch (NumberFormatException e) {
                throw new SettingsException("setting " + settings.describe("temperature") + " must be a number from "
                        + "0 to 2, got '" + t + "'");
            }
        });
        int retries = settings.getInt("max-retries", 3);
        if (retries < 0) {
            throw new SettingsException("setting " + settings.describe("max-retries") + " must be 0 or more, got "
                    + retries);
        }
        return new ModelSettings(provider, baseUrl, name, key, timeout, maxTokens, temperature, retries,
                settings.getDuration("retry-backoff", Duration.ofSeconds(1)), settings.getBoolean("stream", true));
    }

    /** E.g. {@code gpt-4o-mini at https://api.openai.com/v1 (openai)}. */
    public String describe() {
        return name + " at " + baseUrl + " (" + provider + ")";
    }
}
