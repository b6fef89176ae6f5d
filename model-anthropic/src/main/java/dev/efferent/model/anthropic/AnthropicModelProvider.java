package dev.efferent.model.anthropic;

import dev.efferent.model.http.ModelSettings;
import dev.efferent.model.spi.Model;
import dev.efferent.model.spi.ModelProvider;
import dev.efferent.plugin.Settings;
import dev.efferent.plugin.SettingsException;

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
        ModelSettings read = ModelSettings.from(settings, name(), DEFAULT_BASE_URL, "ANTHROPIC_API_KEY");
        if (read.temperature().filter(t -> t > 1).isPresent()) {
            throw new SettingsException("setting " + settings.describe("temperature") + " must be from 0 to 1 for "
                    + "Anthropic's models, got " + read.temperature().get());
        }
        return new AnthropicModel(read);
    }
}
