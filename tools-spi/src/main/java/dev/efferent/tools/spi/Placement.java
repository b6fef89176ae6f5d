package dev.efferent.tools.spi;

/** Where a tool may run. */
public enum Placement {
    /** Needs the user's machine (files, shell, browser): runs on a worker, or in the brain in single-machine mode. */
    LOCAL,
    /** Needs nothing of the user's machine: runs in the brain. */
    CLOUD,
    /** Runs anywhere; a worker is preferred when one is online. */
    HYBRID
}
