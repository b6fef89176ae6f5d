package dev.efferent.tools.fs;

import dev.efferent.plugin.Settings;
import dev.efferent.tools.spi.ToolException;

/**
 * The file toolkit's caps and policy, from {@code tools.fs.*}.
 *
 * @param maxReadBytes       most bytes read_file returns in one call (default 256 KiB)
 * @param maxListEntries     most entries list_dir returns (default 1000)
 * @param maxSearchMatches   most matches search_files may be asked for (default 1000)
 * @param maxSearchFileBytes larger files are skipped by search_files (default 10 MiB)
 * @param allowHardLinks     whether files with more than one hard link may be read or replaced (default false:
 *                           another of their names may lie outside the roots)
 * @param maxRegexSteps      the step budget of search_files' regular expression on one line, in characters read
 *                           (default 1,000,000), on top of {@link BoundedMatcher#STEPS_PER_CHAR} per character of
 *                           the line; a line that needs more is skipped and reported (see {@link BoundedMatcher})
 */
record FsLimits(long maxReadBytes, int maxListEntries, int maxSearchMatches, long maxSearchFileBytes,
                boolean allowHardLinks, long maxRegexSteps) {
    static FsLimits from(Settings settings) {
        return new FsLimits(
                positive(settings, "max-read-bytes", 256 * 1024),
                (int) positive(settings, "max-list-entries", 1000),
                (int) positive(settings, "max-search-matches", 1000),
                positive(settings, "max-search-file-bytes", 10L * 1024 * 1024),
                settings.getBoolean("allow-hardlinks", false),
                positive(settings, "max-regex-steps", BoundedMatcher.DEFAULT_MAX_STEPS));
    }

    private static long positive(Settings settings, String key, long defaultValue) {
        long value = settings.getLong(key, defaultValue);
        if (value < 1 || value > Integer.MAX_VALUE) {
            throw new ToolException("setting 'tools.fs." + key + "' must be from 1 to " + Integer.MAX_VALUE
                    + ", got " + value);
        }
        return value;
    }
}
