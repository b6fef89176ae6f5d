/**
 * Tool calls as every front end makes them: {@link dev.efferent.calls.Origin} says who asks, and
 * {@link dev.efferent.calls.Outcome} what a finished call came to.
 */
package dev.efferent.calls;
