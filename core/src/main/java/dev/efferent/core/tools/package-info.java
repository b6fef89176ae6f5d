/**
 * The tools of this process: the catalogue built from the loaded toolkits, params validation against each
 * tool's JSON Schema, and the executor that runs a call with a deadline, cancellation and progress.
 */
package dev.efferent.core.tools;
