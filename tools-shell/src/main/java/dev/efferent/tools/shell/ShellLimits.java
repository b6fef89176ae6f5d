package dev.efferent.tools.shell;

import java.time.Duration;

/**
 * The shell tool's limits, from {@code tools.shell.*}.
 *
 * @param maxOutputBytes most bytes kept of stdout, and of stderr (default 64 KiB each)
 * @param defaultTimeout timeout of a command that names none (default 30 s)
 */
record ShellLimits(int maxOutputBytes, Duration defaultTimeout) {
}
