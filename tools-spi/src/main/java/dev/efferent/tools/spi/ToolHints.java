package dev.efferent.tools.spi;

/**
 * MCP-style behaviour hints. The router uses them: a read-only or idempotent tool's task may be retried
 * on another worker when its worker is lost.
 *
 * @param readOnly    the tool does not change its environment
 * @param destructive the tool may destroy or overwrite data
 * @param idempotent  calling it again with the same params has no further effect
 * @param openWorld   the tool reaches beyond the machine (network, web pages)
 */
public record ToolHints(boolean readOnly, boolean destructive, boolean idempotent, boolean openWorld) {
    /** A tool that only reads. */
    public static final ToolHints READ_ONLY = new ToolHints(true, false, true, false);
    /** A tool that changes things but not destructively, and not idempotently. */
    public static final ToolHints MUTATING = new ToolHints(false, false, false, false);
}
