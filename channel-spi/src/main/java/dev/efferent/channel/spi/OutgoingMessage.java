package dev.efferent.channel.spi;

import java.util.List;
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
     * @param text    {@code [🔄 NN%] message}, or {@code [🔄] message} when no share of the work is known
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

    /**
     * A reply that grows while the assistant writes it. The parts of one reply share {@code replyId} and come in
     * order; each carries what was appended and the whole {@link #text()} so far; the last has {@code done}. A
     * channel that can edit a message it sent updates it with each part; one that cannot sends the last part's text.
     *
     * @param replyId  the reply these parts build, unique within the conversation
     * @param appended what this part adds
     * @param text     the reply so far, including {@code appended}
     * @param done     whether this is the last part
     */
    record Streamed(String replyId, String appended, String text, boolean done) implements OutgoingMessage {
        public Streamed {
            Objects.requireNonNull(replyId, "replyId");
            Objects.requireNonNull(appended, "appended");
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * A question with fixed answers, e.g. whether a command may run. A channel shows the choices as buttons where
     * it can, each sending its {@link Choice#command()} back as the person's message; {@link #text()} lists the
     * commands, for channels that show text only.
     *
     * @param promptId what the answers refer to
     * @param question the question
     * @param choices  the answers, at least one
     */
    record Prompt(String promptId, String question, List<Choice> choices) implements OutgoingMessage {
        public Prompt {
            Objects.requireNonNull(promptId, "promptId");
            Objects.requireNonNull(question, "question");
            choices = List.copyOf(choices);
            if (choices.isEmpty()) {
                throw new IllegalArgumentException("a prompt needs at least one choice");
            }
        }

        /** The question, then one line per choice: {@code label: command}. */
        @Override
        public String text() {
            StringBuilder b = new StringBuilder(question);
            choices.forEach(c -> b.append('\n').append(c.label()).append(": ").append(c.command()));
            return b.toString();
        }

        /**
         * One answer.
         *
         * @param label   what a button says, e.g. {@code Allow once}
         * @param command the message the answer sends, e.g. {@code /approve k3x9 once}
         */
        public record Choice(String label, String command) {
            public Choice {
                Objects.requireNonNull(label, "label");
                Objects.requireNonNull(command, "command");
            }
        }
    }

    /**
     * A {@link Prompt} was answered (here, elsewhere, or by its timeout): a channel that showed buttons for it takes
     * them away, and the text says what the answer was.
     *
     * @param promptId the prompt
     * @param text     e.g. {@code Answered: allowed once.}
     */
    record PromptClosed(String promptId, String text) implements OutgoingMessage {
        public PromptClosed {
            Objects.requireNonNull(promptId, "promptId");
            Objects.requireNonNull(text, "text");
        }
    }
}
