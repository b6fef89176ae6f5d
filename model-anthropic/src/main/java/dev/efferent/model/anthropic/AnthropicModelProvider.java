package dev.efferent.model.anthropic;

import dev.efferent.model.http.ModelSettings;
import dev.efferent.model.spi.Model;
import dev.efferent.model.spi.ModelProvider;
import dev.efferent.plugin.Settings;

import java.util.Optional;

/** Provides Anthropic's Messages API as {@code anthropic}. */
public final class AnthropicModelProvider implements ModelProvider {
    /** Where the API is when {@code model.base-url} is not set. */
    static final String DEFAULT_BASE_URL = "https://api.anthropic.com";

    /** For {@link java.util.ServiceLoader}. */
    public AnthropicModelProvider() {
    }

    @Override
    public String name() {
        return "anthropic";
    }

    @Override
    public Model open(Settings settings) {
        return new AnthropicModel(ModelSettings.from(settings, name(), DEFAULT_BASE_URL, Optional.empty(),
                "ANTHROPIC_API_KEY"));
    }
}
