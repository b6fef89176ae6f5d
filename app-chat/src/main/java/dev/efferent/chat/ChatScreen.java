package dev.efferent.chat;

import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Size;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Where the chat reads what is typed and shows what the brain says. On a terminal: a prompt with line editing and a
 * history kept across runs (JLine), the brain's messages printed above the line being typed. Through a pipe (a
 * script, a test): plain lines in and out.
 */
abstract sealed class ChatScreen implements AutoCloseable permits ChatScreen.Plain, ChatScreen.Editing {
    static final String PROMPT = "you> ";

    /** The next line typed, or null when input ends (Ctrl-D, end of the pipe). */
    abstract String readLine() throws IOException;

    /** Shows one whole message. */
    abstract void println(String text);

    /** Shows part of a reply still being written; {@link #endPartial()} ends it. */
    abstract void partial(String text);

    abstract void endPartial();

    @Override
    public void close() {
    }

    /** A line editor when standard input and output are a terminal, else plain lines. */
    static ChatScreen open(PrintStream out, Path history) {
        // JLine says at WARNING level when it falls back to a dumb terminal; here that is expected (a pipe).
        Logger.getLogger("org.jline").setLevel(Level.SEVERE);
        Terminal terminal;
        try {
            // The exec provider (stty) only: the native ones load a library, which newer JDKs warn about at start.
            terminal = TerminalBuilder.builder().system(true).dumb(true)
                    .jna(false).jansi(false).jni(false).ffm(false).exec(true).build();
        } catch (IOException | RuntimeException e) {
            return new Plain(out);
        }
        if (terminal.getType().startsWith(Terminal.TYPE_DUMB)) {
            try {
                terminal.close();
            } catch (IOException e) {
                // Nothing was drawn on it: the plain screen takes over either way.
            }
            return new Plain(out);
        }
        if (terminal.getWidth() <= 0) {
            // A terminal that reports no size (a bare pseudo-terminal): lines would be cut to nothing.
            terminal.setSize(new Size(80, 24));
        }
        return new Editing(terminal, history);
    }

    /** Plain lines: what the chat did before it had a prompt. */
    static final class Plain extends ChatScreen {
        private final PrintStream out;
        private final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));

        Plain(PrintStream out) {
            this.out = out;
        }

        @Override
        String readLine() throws IOException {
            return in.readLine();
        }

        @Override
        void println(String text) {
            out.println(text);
        }

        @Override
        void partial(String text) {
            out.print(text);
            out.flush();
        }

        @Override
        void endPartial() {
            out.println();
        }
    }

    /** A prompt with editing and history; messages arrive above it without breaking the line being typed. */
    static final class Editing extends ChatScreen {
        private final Terminal terminal;
        private final LineReader reader;
        private final StringBuilder partial = new StringBuilder();

        Editing(Terminal terminal, Path history) {
            this.terminal = terminal;
            this.reader = LineReaderBuilder.builder().terminal(terminal).appName("efferent")
                    .variable(LineReader.HISTORY_FILE, history)
                    .variable(LineReader.HISTORY_SIZE, 1000)
                    // A command with a secret can be kept out of the history by starting it with a space.
                    .option(LineReader.Option.HISTORY_IGNORE_SPACE, true)
                    .option(LineReader.Option.HISTORY_REDUCE_BLANKS, true)
                    .build();
        }

        @Override
        String readLine() {
            while (true) {
                try {
                    return reader.readLine(PROMPT);
                } catch (UserInterruptException e) {
                    // Ctrl-C clears the line, as in a shell; Ctrl-D quits.
                    continue;
                } catch (EndOfFileException e) {
                    return null;
                }
            }
        }

        @Override
        synchronized void println(String text) {
            reader.printAbove(text);
        }

        @Override
        synchronized void partial(String text) {
            partial.append(text);
            int newline;
            while ((newline = partial.indexOf("\n")) >= 0) {
                reader.printAbove(partial.substring(0, newline));
                partial.delete(0, newline + 1);
            }
        }

        @Override
        synchronized void endPartial() {
            reader.printAbove(partial.toString());
            partial.setLength(0);
        }

        @Override
        public void close() {
            try {
                reader.getHistory().save();
                terminal.close();
            } catch (IOException e) {
                System.err.println("efferent chat: could not save the history: " + e.getMessage());
            }
        }
    }
}
