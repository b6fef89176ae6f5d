package dev.efferent.tools.spi;

import java.util.Objects;

/** One piece of a tool's result, as in MCP: text or an image. */
public sealed interface Content {

    /**
     * Text content.
     *
     * @param text the text
     */
    record Text(String text) implements Content {
        public Text {
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * Image content.
     *
     * @param mimeType e.g. {@code image/png}
     * @param data     the image bytes, base64-encoded
     */
    record Image(String mimeType, String data) implements Content {
        public Image {
            Objects.requireNonNull(mimeType, "mimeType");
            Objects.requireNonNull(data, "data");
        }
    }
}
