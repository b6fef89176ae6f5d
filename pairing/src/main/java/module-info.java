/**
 * Pairing: a machine joins with a one-time code instead of the shared worker secret, and gets a token of its own,
 * which can be listed and taken back. Kept beside the tasks (with PostgreSQL, in its database), hashed.
 */
module efferent.pairing {
    requires transitive efferent.assistant.api;
    requires transitive efferent.router;
    requires com.fasterxml.jackson.databind;

    exports dev.efferent.pairing;
}
