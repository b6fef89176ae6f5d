/**
 * The model provider named {@code anthropic}: Anthropic's Messages API with {@code tool_use} and
 * {@code tool_result}, whole or streamed.
 *
 * @provides dev.efferent.model.spi.ModelProvider
 */
module efferent.model.anthropic {
    requires efferent.model.http;

    provides dev.efferent.model.spi.ModelProvider with dev.efferent.model.anthropic.AnthropicModelProvider;
}
