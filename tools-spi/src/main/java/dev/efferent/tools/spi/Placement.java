package dev.efferent.tools.spi;

/** Where a tool may run. */
public enum Placement {
    /** Needs the user's machine (files, shell, browser): runs on a worker, or in the brain in single-machine mode. */
    LOCAL,
    /** Needs nothing of the user's machine: runs in the brain. */
    CLOUD,
    /**
     * Runs anywhere: on an online worker that offers it, else in the brain (with hands enabled; without, in the
     * brain like every tool).
     */
    HYBRID
}
