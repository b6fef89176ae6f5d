/**
 * What the model providers share: their settings, one POST with retries and errors in plain words, and
 * server-sent events. A library for the providers, not an API: its package is exported to them alone.
 */
module efferent.model.http {
    requires transitive efferent.model.spi;
    requires transitive java.net.http;
    requires transitive com.fasterxml.jackson.databind;

    exports dev.efferent.model.http to efferent.model.openai, efferent.model.anthropic;
}
