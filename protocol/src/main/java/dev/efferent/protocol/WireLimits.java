package dev.efferent.protocol;

import java.util.regex.Pattern;

/** Ranges of the protocol's numeric fields, shared by the records and the codec. */
public final class WireLimits {
    /** Lowest task priority. */
    public static final int MIN_PRIORITY = 1;
    /** Highest task priority. */
    public static final int MAX_PRIORITY = 10;
    /** Priority of a task that does not name one. */
    public static final int DEFAULT_PRIORITY = 5;
    /** Timeout of a task that does not name one: five minutes. */
    public static final long DEFAULT_TIMEOUT_MS = 300_000;
    /** Upper bound of {@code maxConcurrentTasks}. */
    public static final int MAX_CONCURRENCY = 1024;
    /** Tool names: what MCP clients and models accept everywhere (the tool SPI's own rule). */
    public static final Pattern TOOL_NAME = Pattern.compile("[a-z][a-z0-9_]{0,63}");
    /** Deepest nesting of a tool's input schema; real schemas are a few levels deep. */
    public static final int MAX_SCHEMA_DEPTH = 32;
    /** Deepest nesting of any JSON value in a frame (params and results included). */
    public static final int MAX_NESTING = 128;
    /** Most tools one worker may offer. */
    public static final int MAX_TOOLS = 1024;
    /** Default upper bound of one frame, in UTF-8 bytes: 1 MiB. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 1 << 20;

    private WireLimits() {
    }
}
