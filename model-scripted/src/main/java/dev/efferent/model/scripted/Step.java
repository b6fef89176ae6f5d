package dev.efferent.model.scripted;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** What the scripted server does with one request. */
public sealed interface Step {

    /** A tool call in a reply. */
    record Call(String id, String name, String arguments) {
    }

    /**
     * A reply, in the protocol and mode (whole or streamed) the request asked for.
     *
     * @param text       its text; streamed in pieces of a few characters
     * @param calls      the tools it calls
     * @param pieceDelay the pause between streamed pieces
     * @param inputTokens  input tokens reported
     * @param outputTokens output tokens reported
     * @param pieceChars the characters in each streamed piece
     */
    record Reply(String text, List<Call> calls, Duration pieceDelay, long inputTokens, long outputTokens,
                 int pieceChars) implements Step {
        /** A plain answer. */
        public static Reply text(String text) {
            return new Reply(text, List.of(), Duration.ZERO, 10, text.length(), 4);
        }

        /** A call of {@code tool} with {@code arguments} (sent as written, JSON or not). */
        public static Reply call(String tool, String arguments) {
            return calls(List.of(new Call("call_" + Long.toHexString(System.nanoTime()), tool, arguments)));
        }

        /** An answer that calls these tools, ids as given. */
        public static Reply calls(List<Call> calls) {
            return new Reply("", calls, Duration.ZERO, 10, 5, 4);
        }

        /** The same reply, streamed with {@code delay} between pieces. */
        public Reply slowly(Duration delay) {
            return new Reply(text, calls, delay, inputTokens, outputTokens, pieceChars);
        }

        /** The same reply, streamed in pieces of {@code chars} characters. */
        public Reply inPiecesOf(int chars) {
            return new Reply(text, calls, pieceDelay, inputTokens, outputTokens, chars);
        }
    }

    /** An HTTP error: status, body and headers, e.g. 429 with {@code Retry-After}. */
    record Fail(int status, String body, Map<String, String> headers) implements Step {
        /** An error with the protocol's usual JSON body carrying {@code message}. */
        public static Fail of(int status, String message) {
            return new Fail(status, "{\"error\":{\"message\":\"" + message.replace("\"", "'") + "\",\"type\":\"error\"}}",
                    Map.of());
        }
    }

    /** No answer for {@code duration} (then the connection is closed without one). */
    record Hang(Duration duration) implements Step {
    }
}
