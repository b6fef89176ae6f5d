/**
 * The terminal chat: talks to a running brain through its console WebSocket, for people who live in the
 * terminal: a prompt with line editing and history (JLine) on a terminal, plain lines through a pipe.
 */
module efferent.chat {
    requires java.net.http;
    requires java.logging;
    requires org.jline;
    requires com.fasterxml.jackson.databind;
}
