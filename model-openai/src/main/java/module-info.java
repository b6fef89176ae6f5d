/**
 * The model provider named {@code openai}: the OpenAI-compatible chat-completions API with tools and streaming.
 * One provider for OpenAI, Ollama ({@code http://127.0.0.1:11434/v1}), llama.cpp's server, vLLM, LM Studio and
 * OpenRouter.
 *
 * @provides dev.efferent.model.spi.ModelProvider
 */
module efferent.model.openai {
    requires efferent.model.http;

    provides dev.efferent.model.spi.ModelProvider with dev.efferent.model.openai.OpenAiModelProvider;
}
