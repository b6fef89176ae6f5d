/**
 * The terminal chat: talks to a running brain through its console WebSocket, for people who live in the
 * terminal. JDK and Jackson only.
 */
module efferent.chat {
    requires java.net.http;
    requires com.fasterxml.jackson.databind;
}
