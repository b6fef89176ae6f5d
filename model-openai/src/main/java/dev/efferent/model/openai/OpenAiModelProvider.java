package dev.efferent.model.openai;

import dev.efferent.model.http.ModelSettings;
import dev.efferent.model.spi.Model;
import dev.efferent.model.spi.ModelProvider;
import dev.efferent.plugin.Settings;

/** Provides the OpenAI-compatible chat-completions API as {@code openai}. */
public final class OpenAiModelProvider implements ModelProvider {
    /** Where the API is when {@code model.base-url} is not set. */
    static final String DEFAULT_BASE_URL = "https://api.openai.com/v1";

    /** For {@link java.util.ServiceLoader}. */
    public OpenAiModelProvider() {
    }

    @Override
    public String name() {
        return "openai";
    }

    @Override
    public Model open(Settings settings) {
        return new OpenAiModel(ModelSettings.from(settings, name(), DEFAULT_BASE_URL, "OPENAI_API_KEY"));
    }
}
