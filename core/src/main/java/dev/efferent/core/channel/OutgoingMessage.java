package dev.efferent.core.channel;

import java.util.Objects;

/**
 * What the assistant sends to a conversation. Every message has plain {@link #text()} that any channel can show;
 * richer channels use the kind and its fields (a progress bar, an image).
 */
public sealed interface OutgoingMessage {

    /** The message as plain text. */
    String text();

    /**
     * A reply or notice.
     *
     * @param text the text
     */
    record Text(String text) implements OutgoingMessage {
        public Text {
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * How far a task has come.
     *
     * @param taskId  the task
     * @param percent 0 to 100
     * @param text    {@code [🔄 NN%] message}
     */
    record Progress(String taskId, int percent, String text) implements OutgoingMessage {
        public Progress {
            Objects.requireNonNull(taskId, "taskId");
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * How a task ended.
     *
     * @param taskId the task
     * @param ok     whether it completed without error
     * @param text   {@code [✅ Complete] …} or {@code [❌ Failed] …}
     */
    record Result(String taskId, boolean ok, String text) implements OutgoingMessage {
        public Result {
            Objects.requireNonNull(taskId, "taskId");
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * An image, e.g. a screenshot a tool returned.
     *
     * @param mimeType e.g. {@code image/png}
     * @param data     the bytes, base64-encoded
     * @param text     a caption
     */
    record Image(String mimeType, String data, String text) implements OutgoingMessage {
        public Image {
            Objects.requireNonNull(mimeType, "mimeType");
            Objects.requireNonNull(data, "data");
            Objects.requireNonNull(text, "text");
        }
    }
}
